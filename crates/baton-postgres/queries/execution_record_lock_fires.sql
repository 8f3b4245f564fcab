-- Locks the rows of the jobs a batch of fires names (without missed runs) for the rest of the
-- batch's transaction, in name order. The lock is shared with other batches of fires and with
-- claims and completions (which lock or update the rows without changing a key), and excludes
-- a batch with missed runs (execution_record_lock_missed.sql) of the same jobs, so that the
-- batch's statement reads every missed run committed before it.
--   $1 job names.
SELECT j.name
FROM baton_jobs AS j
WHERE j.name = ANY ($1::TEXT[])
ORDER BY j.name
FOR KEY SHARE
