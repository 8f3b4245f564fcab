-- Up to ?2 running executions whose last heartbeat is before ?1, oldest heartbeat first.
SELECT id, job, fire_key, scheduled_at, attempt, "trigger", status, due_at, node, token, created_at,
       started_at, heartbeat_at, finished_at, detail, covers_through, covers_count, cancel_requested
FROM baton_executions
WHERE status = 'running' AND heartbeat_at < ?1
ORDER BY heartbeat_at, id
LIMIT ?2
