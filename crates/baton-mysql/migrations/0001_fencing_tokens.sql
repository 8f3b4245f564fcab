-- The last fencing token issued per lease name. A row is created by the first acquisition of a
-- name and never deleted, not even with the lease row, so a token cannot come round again.
-- Every acquisition locks this row first: it is also what serializes acquisitions of a name.
CREATE TABLE IF NOT EXISTS baton_fencing_tokens (
    name VARCHAR(200) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL PRIMARY KEY,
    last BIGINT NOT NULL
) ENGINE = InnoDB
