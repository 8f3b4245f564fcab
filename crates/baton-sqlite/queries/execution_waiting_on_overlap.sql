-- Whether a job named in ?2 (a JSON array) whose overlap is not 'allow' has a scheduled
-- execution due at ?1: one that may have waited on an execution that just ended.
SELECT EXISTS (
    SELECT 1
    FROM baton_executions AS e
    JOIN baton_jobs AS j ON j.name = e.job
    WHERE e.job IN (SELECT value FROM json_each(?2))
      AND e.status = 'scheduled'
      AND e.due_at <= ?1
      AND j.overlap <> 'allow'
)
