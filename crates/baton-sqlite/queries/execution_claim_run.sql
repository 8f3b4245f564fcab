-- Starts the executions in ?3, a JSON array of [id, token], on node ?2 at ?1 (those claimed
-- ahead of their due instant start at it).
-- The unary + on status keeps the planner off the status indexes, so that each row is found
-- by its id from the array rather than by scanning every row in that status.
UPDATE baton_executions
SET status = 'running', node = ?2, token = run.run_token, started_at = max(?1, due_at),
    heartbeat_at = ?1
FROM (
    SELECT json_extract(value, '$[0]') AS run_id, json_extract(value, '$[1]') AS run_token
    FROM json_each(?3)
) AS run
WHERE baton_executions.id = run.run_id AND +baton_executions.status = 'scheduled'
RETURNING id, job, fire_key, scheduled_at, attempt, "trigger", status, due_at, node, token, created_at,
       started_at, heartbeat_at, finished_at, detail, covers_through, covers_count, cancel_requested
