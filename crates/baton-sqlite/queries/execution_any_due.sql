-- Whether any execution is due at ?1, of the jobs in ?2 (a JSON array of names) or of any job
-- when ?2 is NULL.
SELECT EXISTS (
    SELECT 1
    FROM baton_executions
    WHERE status = 'scheduled'
      AND due_at <= ?1
      AND (?2 IS NULL OR job IN (SELECT value FROM json_each(?2)))
)
