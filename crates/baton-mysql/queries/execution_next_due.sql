-- The earliest due instant of the scheduled executions of the listed jobs or of any job, and
-- this server's time (SYSDATE(6): see now.sql).
-- /*list*/ is replaced by one "?" per job name ("NULL" when the claim names no job).
--   ? any job (bool), then the names.
SELECT MIN(due_at) AS next_due,
       CAST(FLOOR(UNIX_TIMESTAMP(SYSDATE(6)) * 1000) AS SIGNED) AS now_ms
FROM baton_executions
WHERE status = 'scheduled'
  AND (? OR job IN (/*list*/))
