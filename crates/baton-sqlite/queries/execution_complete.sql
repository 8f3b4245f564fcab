-- Finishes execution ?1 if it still runs under token ?2: status ?3, detail ?4, at ?5.
UPDATE baton_executions
SET status = ?3, detail = ?4, finished_at = ?5
WHERE id = ?1 AND token = ?2 AND status = 'running'
RETURNING id, job, fire_key, scheduled_at, attempt, "trigger", status, due_at, node, token, created_at,
       started_at, heartbeat_at, finished_at, detail, covers_through, covers_count, cancel_requested
