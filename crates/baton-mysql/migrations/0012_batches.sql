-- One run of a partitioned job; strategy is its printed name, such as 'fixed-node-count(3)'.
CREATE TABLE IF NOT EXISTS baton_batches (
    id          BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
    name        VARCHAR(200) NOT NULL,
    strategy    VARCHAR(64) NOT NULL,
    state       VARCHAR(16) NOT NULL CHECK (state IN ('running', 'succeeded', 'failed')),
    created_at  BIGINT NOT NULL,
    finished_at BIGINT NULL,
    failure     TEXT NULL,
    -- Listings of one job's batches, and the running batches a claim filters by job.
    KEY baton_batches_by_name (name, state, id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin
