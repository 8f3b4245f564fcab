-- The counter rows of the wake-up channels in baton_cluster_counters, never deleted:
-- 'due'     how many times executions were made due for the workers;
-- 'pending' how many times partitions were made pending for others to claim.
-- Each is raised in the transaction that did it (wakeup_raise.sql); idle waiters watch it
-- (wakeup_wait.sql). Existing rows keep their counts.
INSERT INTO baton_cluster_counters (name, last) VALUES ('due', 0), ('pending', 0)
ON DUPLICATE KEY UPDATE last = last
