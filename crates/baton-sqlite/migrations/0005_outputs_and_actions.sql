-- What each completed execution printed or reported, apart from the execution rows so that
-- claims and listings stay narrow; deleted with its execution.
CREATE TABLE baton_execution_outputs (
    execution_id INTEGER PRIMARY KEY REFERENCES baton_executions (id) ON DELETE CASCADE,
    output TEXT NOT NULL
);

-- The operator action log: who asked for what, and when (store clock, milliseconds).
CREATE TABLE baton_actions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    at INTEGER NOT NULL,
    actor TEXT NOT NULL,
    action TEXT NOT NULL,
    target TEXT NOT NULL,
    detail TEXT
);
