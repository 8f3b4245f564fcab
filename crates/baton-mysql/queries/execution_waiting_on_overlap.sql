-- Whether a listed job whose overlap is not 'allow' has a scheduled execution due by an
-- instant: one that may have waited on an execution that just ended. The jobs are read first
-- (STRAIGHT_JOIN), so that only those jobs' executions are looked up, one index range each on
-- (job, status, due_at).
-- /*list*/ is replaced by one "?" per job name.
--   ? due by (ms), then the names.
SELECT EXISTS (
    SELECT 1
    FROM baton_jobs AS j
    STRAIGHT_JOIN baton_executions AS e FORCE INDEX (baton_executions_job_due)
        ON e.job = j.name AND e.status = 'scheduled' AND e.due_at <= ?
    WHERE j.name IN (/*list*/)
      AND j.overlap <> 'allow'
) AS waiting
