-- Rebalancing running batches: the scale-up strategy, work stealing, and the record of every
-- move of a partition between nodes.

ALTER TABLE baton_batches DROP CONSTRAINT baton_batches_strategy_check;
ALTER TABLE baton_batches ADD CONSTRAINT baton_batches_strategy_check CHECK (
    strategy ~ '^(round-robin|least-loaded|free-for-all|scale-up|fixed-node-count\([1-9][0-9]*\))$');

-- Whether idle nodes steal the pending partitions of a batch from the node with the most.
ALTER TABLE baton_batches ADD COLUMN stealing BOOLEAN NOT NULL DEFAULT FALSE;

-- One row per move of a partition between nodes: the leader's rebalancing ('join', 'steal',
-- with the token the move issued) and failovers off departed nodes ('failover', no token;
-- to_node NULL when any node may claim it).
CREATE TABLE baton_partition_moves (
    id           BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    batch        BIGINT NOT NULL REFERENCES baton_batches (id),
    partition_id BIGINT NOT NULL REFERENCES baton_partitions (id),
    key          TEXT   NOT NULL,
    from_node    TEXT   NOT NULL,
    to_node      TEXT,
    reason       TEXT   NOT NULL CHECK (reason IN ('join', 'steal', 'failover')),
    token        BIGINT CHECK (token > 0),
    moved_at     BIGINT NOT NULL
);

-- A batch's moves, oldest first.
CREATE INDEX baton_partition_moves_by_batch ON baton_partition_moves (batch, id);
