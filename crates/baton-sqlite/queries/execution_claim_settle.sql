-- Settles the executions in ?2, a JSON array of [id, status, detail], at ?1 without running
-- them.
-- The unary + on status keeps the planner off the status indexes, so that each row is found
-- by its id from the array rather than by scanning every row in that status.
UPDATE baton_executions
SET status = settle.settle_status, detail = settle.settle_detail, finished_at = ?1
FROM (
    SELECT json_extract(value, '$[0]') AS settle_id,
           json_extract(value, '$[1]') AS settle_status,
           json_extract(value, '$[2]') AS settle_detail
    FROM json_each(?2)
) AS settle
WHERE baton_executions.id = settle.settle_id AND +baton_executions.status = 'scheduled'
RETURNING id, job, fire_key, scheduled_at, attempt, "trigger", status, due_at, node, token, created_at,
       started_at, heartbeat_at, finished_at, detail, covers_through, covers_count, cancel_requested
