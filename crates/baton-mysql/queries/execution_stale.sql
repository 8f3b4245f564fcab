-- Locks up to n running executions whose last heartbeat is before an instant, oldest
-- heartbeat first; one a completion has locked is left to it (SKIP LOCKED).
--   ? cutoff (ms), rows to read.
SELECT id, job, fire_key, scheduled_at, attempt, `trigger`, status, due_at, node, token, created_at,
       started_at, heartbeat_at, finished_at, detail, covers_through, covers_count, cancel_requested
FROM baton_executions
WHERE status = 'running' AND heartbeat_at < ?
ORDER BY heartbeat_at, id
LIMIT ?
FOR UPDATE SKIP LOCKED
