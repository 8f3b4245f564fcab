-- Whether a listed job whose overlap is not 'allow' has a scheduled execution due by an
-- instant: one that may have waited on an execution that just ended.
-- /*list*/ is replaced by one "?" per job name.
--   ? due by (ms), then the names.
SELECT EXISTS (
    SELECT 1
    FROM baton_executions AS e
    JOIN baton_jobs AS j ON j.name = e.job
    WHERE e.status = 'scheduled'
      AND e.due_at <= ?
      AND e.job IN (/*list*/)
      AND j.overlap <> 'allow'
) AS waiting
