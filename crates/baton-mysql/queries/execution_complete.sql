-- Finishes an execution if it still runs under the token (compare-and-set). Matched rows:
-- 1 finished, 0 no longer running under that token.
--   ? status, detail, now, id, token.
UPDATE baton_executions
SET status = ?, detail = ?, finished_at = ?
WHERE id = ? AND token = ? AND status = 'running'
