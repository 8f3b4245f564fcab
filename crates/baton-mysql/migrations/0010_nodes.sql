-- Cluster nodes: one record per node id, rewritten by each registration (a new incarnation
-- under a new token); seq is assigned by the first registration and kept, and listings page by
-- it. Instants are BIGINT milliseconds on this server's clock (SYSDATE(6)), like the leases'.
--
-- Locking order, which keeps every cluster transaction free of lock cycles: a node record
-- first (several in seq order), then partitions (in id order, or with SKIP LOCKED), then the
-- counters of baton_cluster_counters, token before pending. Batch records are locked only by
-- finishing a batch, which locks nothing else.
CREATE TABLE IF NOT EXISTS baton_nodes (
    seq              BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
    id               VARCHAR(200) NOT NULL,
    host             VARCHAR(200) NOT NULL,
    version          VARCHAR(200) NOT NULL,
    token            BIGINT NOT NULL CHECK (token > 0),
    started_at       BIGINT NOT NULL,
    heartbeat_at     BIGINT NOT NULL,
    reported_load    BIGINT NOT NULL CHECK (reported_load >= 0),
    state            VARCHAR(16) NOT NULL
        CHECK (state IN ('active', 'unreachable', 'removed', 'left')),
    state_changed_at BIGINT NOT NULL,
    UNIQUE KEY baton_nodes_by_id (id),
    -- Listings by state, the live nodes and the sweep's candidates, by seq.
    KEY baton_nodes_by_state (state, seq)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin
