-- Whether idle nodes steal the pending partitions of a batch from the node with the most.
ALTER TABLE baton_batches ADD COLUMN stealing INTEGER NOT NULL DEFAULT 0 CHECK (stealing IN (0, 1));

-- One row per move of a partition between nodes: the leader's rebalancing ('join', 'steal',
-- with the token the move issued) and failovers off departed nodes ('failover', no token;
-- to_node NULL when any node may claim it).
CREATE TABLE baton_partition_moves (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    batch        INTEGER NOT NULL REFERENCES baton_batches (id),
    partition_id INTEGER NOT NULL REFERENCES baton_partitions (id),
    key          TEXT    NOT NULL,
    from_node    TEXT    NOT NULL,
    to_node      TEXT,
    reason       TEXT    NOT NULL CHECK (reason IN ('join', 'steal', 'failover')),
    token        INTEGER CHECK (token > 0),
    moved_at     INTEGER NOT NULL
) STRICT;

-- A batch's moves, oldest first.
CREATE INDEX baton_partition_moves_by_batch ON baton_partition_moves (batch, id);
