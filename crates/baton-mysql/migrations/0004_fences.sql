-- Fence rows for the fenced sink helper: the highest token each protected resource has
-- accepted. A writer presenting a lower token is stale and its transaction is rejected.
CREATE TABLE IF NOT EXISTS baton_fences (
    resource VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL PRIMARY KEY,
    token    BIGINT NOT NULL
) ENGINE = InnoDB
