-- The earliest due instant of the scheduled executions of the jobs in ?1 (a JSON array of
-- names), or of any job when ?1 is NULL.
SELECT MIN(due_at)
FROM baton_executions
WHERE status = 'scheduled'
  AND (?1 IS NULL OR job IN (SELECT value FROM json_each(?1)))
