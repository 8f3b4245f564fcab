-- The latest attempt of a fire (read once the job's row is locked, which serializes the
-- triggers of one job).
--   ? job, fire_key.
SELECT id, job, fire_key, scheduled_at, attempt, `trigger`, status, due_at, node, token, created_at,
       started_at, heartbeat_at, finished_at, detail, covers_through, covers_count, cancel_requested
FROM baton_executions
WHERE job = ? AND fire_key = ?
ORDER BY attempt DESC
LIMIT 1
