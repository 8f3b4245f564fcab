-- Reads the listed executions by id.
-- /*list*/ is replaced by one "?" per id.
SELECT id, job, fire_key, scheduled_at, attempt, `trigger`, status, due_at, node, token, created_at,
       started_at, heartbeat_at, finished_at, detail, covers_through, covers_count, cancel_requested
FROM baton_executions
WHERE id IN (/*list*/)
ORDER BY id
