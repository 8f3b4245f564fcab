-- Records at ?1 the heartbeat of node ?2 for the executions in ?3, a JSON array of
-- [id, token]; only those still running on that node under that token are touched and listed.
-- The unary + on status keeps the planner off the status indexes, so that each row is found
-- by its id from the array rather than by scanning every row in that status.
UPDATE baton_executions
SET heartbeat_at = ?1
FROM (
    SELECT json_extract(value, '$[0]') AS beat_id, json_extract(value, '$[1]') AS beat_token
    FROM json_each(?3)
) AS beat
WHERE baton_executions.id = beat.beat_id
  AND baton_executions.token = beat.beat_token
  AND +baton_executions.status = 'running'
  AND baton_executions.node = ?2
RETURNING id, cancel_requested
