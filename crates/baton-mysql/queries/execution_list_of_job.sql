-- As execution_list.sql, for one job only.
--   ? job, after id, status, status, since, since, until, until, rows to read.
SELECT id, job, fire_key, scheduled_at, attempt, `trigger`, status, due_at, node, token, created_at,
       started_at, heartbeat_at, finished_at, detail, covers_through, covers_count, cancel_requested
FROM baton_executions
WHERE job = ?
  AND id > ?
  AND (? IS NULL OR status = ?)
  AND (? IS NULL OR scheduled_at >= ?)
  AND (? IS NULL OR scheduled_at < ?)
ORDER BY id
LIMIT ?
