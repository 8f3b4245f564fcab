-- Starts the listed executions on a node at the claim's time, each under its token; those
-- claimed ahead of their due instant start at it.
--   ? JSON array of [id, token], node, now, now.
UPDATE baton_executions AS e
JOIN JSON_TABLE(?, '$[*]' COLUMNS (id BIGINT PATH '$[0]', token BIGINT PATH '$[1]')) AS run
    ON e.id = run.id
SET e.status = 'running', e.node = ?, e.token = run.token, e.started_at = GREATEST(?, e.due_at),
    e.heartbeat_at = ?
WHERE e.status = 'scheduled'
