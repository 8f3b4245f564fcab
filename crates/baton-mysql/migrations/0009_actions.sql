-- The operator action log: who asked for what, and when (server clock, milliseconds).
CREATE TABLE IF NOT EXISTS baton_actions (
    id     BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
    at     BIGINT NOT NULL,
    actor  VARCHAR(200) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
    action VARCHAR(200) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
    target VARCHAR(200) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
    detail TEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL
) ENGINE = InnoDB
