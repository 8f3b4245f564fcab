-- Records the next attempt of a fire, due after its backoff, unless that attempt is already
-- recorded (INSERT IGNORE on the unique key of the fire and attempt, deliberately: the
-- affected-row count then says whether it was inserted). Its id is LAST_INSERT_ID().
--   ? job, fire_key, scheduled_at, attempt, due_at, now.
INSERT IGNORE INTO baton_executions (
    job, fire_key, scheduled_at, attempt, `trigger`, status, due_at, created_at
)
VALUES (?, ?, ?, ?, 'retry', 'scheduled', ?, ?)
