-- Counts one more wake-up of a channel, in the transaction that made something available, as
-- its last row lock: waiters watching the counter (wakeup_wait.sql) see it once it commits.
--   ? channel ('due' or 'pending').
UPDATE baton_cluster_counters SET last = last + 1 WHERE name = ?
