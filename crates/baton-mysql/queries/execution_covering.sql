-- The missed runs of the listed jobs that reach a given instant or later: each one's job, first
-- instant and last instant. Read while those jobs are locked (job_lock_shared.sql), so no missed
-- run of theirs is recorded before the fires checked against this answer are inserted
-- (execution_fires_insert.sql). A read with a constant bound, so that it is one index range per
-- job on (job, covers_through): a condition on each fire's own instant inside the insert was
-- read as a walk over the job's whole history per fire (O(history) per fire, about 1 s per
-- 1,000 fires at 25,000 executions per job).
-- /*list*/ is replaced by one "?" per job name.
--   ?... job names, ? the earliest instant of the fires.
SELECT job, scheduled_at, covers_through
FROM baton_executions FORCE INDEX (baton_executions_job_covers)
WHERE job IN (/*list*/)
  AND covers_through >= ?
