-- The earliest due instant of the scheduled executions of one listed job, and this server's
-- time (SYSDATE(6): see now.sql). The minimum is a subquery of its own: beside SYSDATE(6) in
-- one select list, MariaDB reads every scheduled row of the job instead of the first entry of
-- (job, status, due_at). The statement run is this SELECT once per job, joined by UNION ALL
-- (queries::union_all); the caller takes the least instant.
--   ? the job's name.
(SELECT (SELECT MIN(due_at)
         FROM baton_executions FORCE INDEX (baton_executions_job_due)
         WHERE job = ? AND status = 'scheduled') AS next_due,
        CAST(FLOOR(UNIX_TIMESTAMP(SYSDATE(6)) * 1000) AS SIGNED) AS now_ms)
