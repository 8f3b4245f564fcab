-- Which of the listed executions run on a node under their tokens, and whether each was asked
-- to stop.
--   ? JSON array of [id, token], node.
SELECT e.id, e.cancel_requested
FROM baton_executions AS e
JOIN JSON_TABLE(?, '$[*]' COLUMNS (id BIGINT PATH '$[0]', token BIGINT PATH '$[1]')) AS beat
    ON e.id = beat.id AND e.token = beat.token
WHERE e.status = 'running' AND e.node = ?
