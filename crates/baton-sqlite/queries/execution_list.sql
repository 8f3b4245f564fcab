-- A page of executions after id ?1, filtered by status ?2, scheduled at or after ?3 and
-- before ?4 (each ignored when NULL), at most ?5 rows.
SELECT id, job, fire_key, scheduled_at, attempt, "trigger", status, due_at, node, token, created_at,
       started_at, heartbeat_at, finished_at, detail, covers_through, covers_count, cancel_requested
FROM baton_executions
WHERE id > ?1
  AND (?2 IS NULL OR status = ?2)
  AND (?3 IS NULL OR scheduled_at >= ?3)
  AND (?4 IS NULL OR scheduled_at < ?4)
ORDER BY id
LIMIT ?5
