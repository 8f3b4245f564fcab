-- What each completed execution printed or reported (up to 1 MiB), apart from the execution
-- rows so that claims and listings stay narrow; deleted with its execution.
CREATE TABLE IF NOT EXISTS baton_execution_outputs (
    execution_id BIGINT NOT NULL PRIMARY KEY,
    output       MEDIUMTEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
    CONSTRAINT baton_execution_outputs_execution FOREIGN KEY (execution_id)
        REFERENCES baton_executions (id) ON DELETE CASCADE
) ENGINE = InnoDB
