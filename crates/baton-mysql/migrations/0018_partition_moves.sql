-- One row per move of a partition between nodes: the leader's rebalancing ('join', 'steal',
-- with the token the move issued) and failovers off departed nodes ('failover', no token;
-- to_node NULL when any node may claim it).
CREATE TABLE IF NOT EXISTS baton_partition_moves (
    id            BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
    batch         BIGINT NOT NULL,
    partition_id  BIGINT NOT NULL,
    partition_key VARCHAR(200) NOT NULL,
    from_node     VARCHAR(200) NOT NULL,
    to_node       VARCHAR(200) NULL,
    reason        VARCHAR(16) NOT NULL CHECK (reason IN ('join', 'steal', 'failover')),
    token         BIGINT NULL CHECK (token > 0),
    moved_at      BIGINT NOT NULL,
    -- A batch's moves, oldest first.
    KEY baton_partition_moves_by_batch (batch, id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin
