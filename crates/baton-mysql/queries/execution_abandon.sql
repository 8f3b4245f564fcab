-- Marks the listed running executions abandoned at the given time, each with its reason.
--   ? JSON array of [id, detail], now.
UPDATE baton_executions AS e
JOIN JSON_TABLE(?, '$[*]' COLUMNS (
    id     BIGINT PATH '$[0]',
    detail TEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[1]'
)) AS gone ON e.id = gone.id
SET e.status = 'abandoned', e.detail = gone.detail, e.finished_at = ?
WHERE e.status = 'running'
