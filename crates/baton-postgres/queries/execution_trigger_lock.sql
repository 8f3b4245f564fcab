-- Locks a job's row for the rest of a trigger's transaction, so that triggers of one job
-- decide one after another, and reads the server's time (the transaction's, which the rest of
-- the trigger shares). No row answered means the job is not registered.
--   $1 job name.
SELECT baton_now_ms() AS now_ms
FROM baton_jobs AS j
WHERE j.name = $1
FOR NO KEY UPDATE
