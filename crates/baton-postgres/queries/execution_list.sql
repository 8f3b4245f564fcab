-- One page of executions by id (keyset pagination), with optional filters.
--   $1 last id already seen (0 for the first page), $2 job (NULL: any), $3 status (NULL: any),
--   $4 scheduled at or after (NULL: no bound), $5 scheduled before (NULL: no bound),
--   $6 rows to read (page size + 1).
SELECT id, job, fire_key, scheduled_at, attempt, trigger, status, due_at, node, token,
       created_at, started_at, heartbeat_at, finished_at, detail, covers_through, covers_count,
       cancel_requested
FROM baton_executions
WHERE id > $1
  AND ($2::TEXT IS NULL OR job = $2::TEXT)
  AND ($3::TEXT IS NULL OR status = $3::TEXT)
  AND ($4::BIGINT IS NULL OR scheduled_at >= $4::BIGINT)
  AND ($5::BIGINT IS NULL OR scheduled_at < $5::BIGINT)
ORDER BY id
LIMIT $6
