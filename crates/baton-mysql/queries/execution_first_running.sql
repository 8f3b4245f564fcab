-- For every listed job, its running execution with the lowest id.
-- /*list*/ is replaced by one "?" per job name.
SELECT id, job, fire_key, scheduled_at, attempt, `trigger`, status, due_at, node, token, created_at,
       started_at, heartbeat_at, finished_at, detail, covers_through, covers_count, cancel_requested
FROM baton_executions
WHERE id IN (
    SELECT MIN(id)
    FROM baton_executions
    WHERE status = 'running' AND job IN (/*list*/)
    GROUP BY job
)
