-- One new attempt: scheduled (node, token and start NULL), or already running. Its id is the
-- statement's LAST_INSERT_ID().
--   ? job, fire_key, scheduled_at, attempt, trigger, status, due_at, node, token, created_at,
--     started_at, heartbeat_at.
INSERT INTO baton_executions (
    job, fire_key, scheduled_at, attempt, `trigger`, status, due_at, node, token, created_at,
    started_at, heartbeat_at
)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
