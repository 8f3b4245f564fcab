-- For every listed job, the ids of its n lowest-id scheduled executions due by an instant.
-- /*list*/ is replaced by one "?" per job name.
--   ? due by (ms), then the names, then n.
SELECT job, id
FROM (
    SELECT job, id, ROW_NUMBER() OVER (PARTITION BY job ORDER BY id) AS position
    FROM baton_executions
    WHERE status = 'scheduled'
      AND due_at <= ?
      AND job IN (/*list*/)
) AS waiting
WHERE position <= ?
ORDER BY job, id
