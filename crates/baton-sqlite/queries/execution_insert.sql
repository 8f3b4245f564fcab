-- One new attempt recorded at ?10: scheduled (node ?8, token ?9 and start ?11 NULL), or
-- already running (claimed at ?11).
INSERT INTO baton_executions (
    job, fire_key, scheduled_at, attempt, "trigger", status, due_at, node, token, created_at,
    started_at, heartbeat_at
)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?11)
RETURNING id, job, fire_key, scheduled_at, attempt, "trigger", status, due_at, node, token, created_at,
       started_at, heartbeat_at, finished_at, detail, covers_through, covers_count, cancel_requested
