-- The latest attempt of one fire.
--   $1 job name, $2 fire key.
SELECT id, job, fire_key, scheduled_at, attempt, trigger, status, due_at, node, token,
       created_at, started_at, heartbeat_at, finished_at, detail, covers_through, covers_count,
       cancel_requested
FROM baton_executions
WHERE job = $1 AND fire_key = $2
ORDER BY attempt DESC
LIMIT 1
