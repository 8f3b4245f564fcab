-- Every change of a node's state (I8): token is the incarnation concerned, from_state is NULL
-- for a first registration.
CREATE TABLE IF NOT EXISTS baton_node_changes (
    id         BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
    node       VARCHAR(200) NOT NULL,
    token      BIGINT NOT NULL CHECK (token > 0),
    from_state VARCHAR(16) NULL,
    to_state   VARCHAR(16) NOT NULL,
    changed_at BIGINT NOT NULL,
    reason     VARCHAR(16) NOT NULL
        CHECK (reason IN ('registered', 'reregistered', 'no-heartbeat', 'left')),
    -- One node's history, oldest first.
    KEY baton_node_changes_by_node (node, id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin
