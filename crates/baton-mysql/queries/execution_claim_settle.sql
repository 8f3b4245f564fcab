-- Settles the listed executions without running them, with their final status and reason.
--   ? JSON array of [id, status, detail], now.
UPDATE baton_executions AS e
JOIN JSON_TABLE(?, '$[*]' COLUMNS (
    id     BIGINT PATH '$[0]',
    status VARCHAR(16) PATH '$[1]',
    detail TEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[2]'
)) AS settle ON e.id = settle.id
SET e.status = settle.status, e.detail = settle.detail, e.finished_at = ?
WHERE e.status = 'scheduled'
