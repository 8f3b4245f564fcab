-- The oldest heartbeat of the running executions (NULL when none runs).
SELECT MIN(heartbeat_at)
FROM baton_executions
WHERE status = 'running'
