-- A page of executions after an id, filtered by status, scheduled at or after an instant and
-- before another (each filter ignored when NULL).
--   ? after id, status, status, since, since, until, until, rows to read.
SELECT id, job, fire_key, scheduled_at, attempt, `trigger`, status, due_at, node, token, created_at,
       started_at, heartbeat_at, finished_at, detail, covers_through, covers_count, cancel_requested
FROM baton_executions
WHERE id > ?
  AND (? IS NULL OR status = ?)
  AND (? IS NULL OR scheduled_at >= ?)
  AND (? IS NULL OR scheduled_at < ?)
ORDER BY id
LIMIT ?
