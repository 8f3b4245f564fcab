-- For every job named in ?2 (a JSON array), the ids of its ?3 lowest-id executions due at ?1.
SELECT job, id
FROM (
    SELECT job, id, ROW_NUMBER() OVER (PARTITION BY job ORDER BY id) AS position
    FROM baton_executions
    WHERE status = 'scheduled'
      AND due_at <= ?1
      AND job IN (SELECT value FROM json_each(?2))
)
WHERE position <= ?3
ORDER BY job, id
