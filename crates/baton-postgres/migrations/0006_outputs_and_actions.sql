-- What each completed execution printed or reported, apart from the execution rows so that
-- claims and listings stay narrow; deleted with its execution.
CREATE TABLE baton_execution_outputs (
    execution_id BIGINT PRIMARY KEY REFERENCES baton_executions (id) ON DELETE CASCADE,
    output TEXT NOT NULL
);

-- The operator action log: who asked for what, and when (server clock, milliseconds).
CREATE TABLE baton_actions (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at BIGINT NOT NULL,
    actor TEXT NOT NULL,
    action TEXT NOT NULL,
    target TEXT NOT NULL,
    detail TEXT
);
