-- Every acquisition of every lease, in order (the leader-change history).
CREATE TABLE IF NOT EXISTS baton_leader_changes (
    id         BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
    lease      VARCHAR(200) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
    holder     VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
    token      BIGINT NOT NULL,
    changed_at BIGINT NOT NULL,
    reason     VARCHAR(32) NOT NULL,
    -- When the term before this one ended (its last renewal, or its release), on the server's
    -- clock; NULL for the first term of a name.
    previous_end BIGINT NULL,
    KEY baton_leader_changes_by_lease (lease, id)
) ENGINE = InnoDB
