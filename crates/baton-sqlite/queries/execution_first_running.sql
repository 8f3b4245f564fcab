-- For every job named in ?1 (a JSON array), its running execution with the lowest id.
SELECT id, job, fire_key, scheduled_at, attempt, "trigger", status, due_at, node, token, created_at,
       started_at, heartbeat_at, finished_at, detail, covers_through, covers_count, cancel_requested
FROM baton_executions
WHERE id IN (
    SELECT MIN(id)
    FROM baton_executions
    WHERE status = 'running' AND job IN (SELECT value FROM json_each(?1))
    GROUP BY job
)
