-- Records a node's heartbeat for the listed executions still running on it under their
-- tokens; the caller reads the beaten ones back in the same transaction
-- (execution_beaten.sql).
--   ? JSON array of [id, token], now, node.
UPDATE baton_executions AS e
JOIN JSON_TABLE(?, '$[*]' COLUMNS (id BIGINT PATH '$[0]', token BIGINT PATH '$[1]')) AS beat
    ON e.id = beat.id AND e.token = beat.token
SET e.heartbeat_at = ?
WHERE e.status = 'running' AND e.node = ?
