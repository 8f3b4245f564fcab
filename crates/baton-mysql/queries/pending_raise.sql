-- Counts one more time that partitions were made pending, in the transaction that did it, as
-- its last row lock: idle nodes watching the counter (pending_wait.sql) claim once it commits.
INSERT INTO baton_cluster_counters (name, last) VALUES ('pending', 1)
ON DUPLICATE KEY UPDATE last = last + 1
