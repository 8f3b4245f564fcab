-- The partitions of every batch, created with it. node is the node a pending partition is
-- assigned to (NULL: any node may claim it) or the one that claimed it; token is the token of
-- its latest claim, kept when it is requeued and current only while it is claimed. Parameters,
-- checkpoints and results are JSON text kept byte for byte and never parsed.
CREATE TABLE IF NOT EXISTS baton_partitions (
    id            BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
    batch         BIGINT NOT NULL,
    partition_key VARCHAR(200) NOT NULL,
    params        MEDIUMTEXT NOT NULL,
    transferable  BOOLEAN NOT NULL,
    state         VARCHAR(16) NOT NULL
        CHECK (state IN ('pending', 'claimed', 'completed', 'failed')),
    node          VARCHAR(200) NULL,
    token         BIGINT NULL CHECK (token > 0),
    checkpoint    MEDIUMTEXT NULL,
    result        MEDIUMTEXT NULL,
    attempts      BIGINT NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    progress      BIGINT NOT NULL DEFAULT 0 CHECK (progress >= 0),
    created_at    BIGINT NOT NULL,
    claimed_at    BIGINT NULL,
    heartbeat_at  BIGINT NULL,
    finished_at   BIGINT NULL,
    error         TEXT NULL,
    UNIQUE KEY baton_partitions_by_key (batch, partition_key),
    -- A batch's partitions by id, and by state then id (listings, the tally).
    KEY baton_partitions_by_batch (batch, state, id),
    -- Claims: the pending partitions assigned to one node, and the unassigned ones, by id.
    KEY baton_partitions_claimable (state, node, id),
    -- The unfinished partitions of one node (registration, leave).
    KEY baton_partitions_by_node (node, state, id),
    CHECK (state <> 'claimed' OR (node IS NOT NULL AND token IS NOT NULL))
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin
