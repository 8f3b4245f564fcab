-- Marks the running executions in ?2, a JSON array of [id, detail], abandoned at ?1.
-- The unary + on status keeps the planner off the status indexes, so that each row is found
-- by its id from the array rather than by scanning every row in that status.
UPDATE baton_executions
SET status = 'abandoned', detail = gone.gone_detail, finished_at = ?1
FROM (
    SELECT json_extract(value, '$[0]') AS gone_id, json_extract(value, '$[1]') AS gone_detail
    FROM json_each(?2)
) AS gone
WHERE baton_executions.id = gone.gone_id AND +baton_executions.status = 'running'
RETURNING id, job, fire_key, scheduled_at, attempt, "trigger", status, due_at, node, token, created_at,
       started_at, heartbeat_at, finished_at, detail, covers_through, covers_count, cancel_requested
