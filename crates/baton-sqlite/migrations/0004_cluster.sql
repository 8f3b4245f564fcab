-- Cluster membership and partitioned batches (invariants I7 and I8).
-- Instants are INTEGER milliseconds since the Unix epoch on the host clock. Node and partition
-- tokens come from the 'lease_token' counter of baton_counters, like lease and execution
-- tokens, so they never collide with them and only grow. JSON text (partition parameters,
-- checkpoints, results) is kept as TEXT exactly as written and never parsed.

-- One row per node id, rewritten by each registration (a new incarnation under a new token);
-- seq is assigned at the first registration and kept. AUTOINCREMENT keeps seq and the other ids
-- below from being reused, so keyset cursors stay valid.
CREATE TABLE baton_nodes (
    seq              INTEGER PRIMARY KEY AUTOINCREMENT,
    id               TEXT    NOT NULL UNIQUE,
    host             TEXT    NOT NULL,
    version          TEXT    NOT NULL,
    token            INTEGER NOT NULL CHECK (token > 0),
    started_at       INTEGER NOT NULL,
    heartbeat_at     INTEGER NOT NULL,
    load             INTEGER NOT NULL CHECK (load >= 0),
    state            TEXT    NOT NULL CHECK (state IN ('active', 'unreachable', 'removed', 'left')),
    state_changed_at INTEGER NOT NULL
) STRICT;

-- Listings by state, the live nodes, and the sweep's silent nodes.
CREATE INDEX baton_nodes_state ON baton_nodes (state, heartbeat_at);

-- One row per node state change; from_state is NULL for a first registration.
CREATE TABLE baton_node_changes (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    node       TEXT    NOT NULL,
    token      INTEGER NOT NULL CHECK (token > 0),
    from_state TEXT,
    to_state   TEXT    NOT NULL,
    at         INTEGER NOT NULL,
    reason     TEXT    NOT NULL
        CHECK (reason IN ('registered', 'reregistered', 'no-heartbeat', 'left'))
) STRICT;

-- One node's history, oldest first.
CREATE INDEX baton_node_changes_by_node ON baton_node_changes (node, id);

-- One row per run of a partitioned job; strategy is its printed name, such as
-- 'fixed-node-count(3)'.
CREATE TABLE baton_batches (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    name        TEXT    NOT NULL,
    strategy    TEXT    NOT NULL,
    state       TEXT    NOT NULL CHECK (state IN ('running', 'succeeded', 'failed')),
    created_at  INTEGER NOT NULL,
    finished_at INTEGER,
    failure     TEXT
) STRICT;

-- Listings of one job's batches.
CREATE INDEX baton_batches_by_name ON baton_batches (name, id);

-- One row per partition of a batch, created with it. node is the node it is assigned to or
-- claimed by (NULL: any node may claim it); token is the token of its latest claim.
CREATE TABLE baton_partitions (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    batch        INTEGER NOT NULL REFERENCES baton_batches (id),
    key          TEXT    NOT NULL,
    params       TEXT    NOT NULL,
    transferable INTEGER NOT NULL CHECK (transferable IN (0, 1)),
    state        TEXT    NOT NULL CHECK (state IN ('pending', 'claimed', 'completed', 'failed')),
    node         TEXT,
    token        INTEGER CHECK (token > 0),
    checkpoint   TEXT,
    result       TEXT,
    attempts     INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    progress     INTEGER NOT NULL DEFAULT 0 CHECK (progress >= 0),
    created_at   INTEGER NOT NULL,
    claimed_at   INTEGER,
    heartbeat_at INTEGER,
    finished_at  INTEGER,
    error        TEXT,
    UNIQUE (batch, key),
    CHECK (state <> 'claimed' OR (node IS NOT NULL AND token IS NOT NULL))
) STRICT;

-- A batch's partitions by id (listings), and by state then id (filtered listings, the tally
-- and the first failed partitions of a finishing batch).
CREATE INDEX baton_partitions_by_batch ON baton_partitions (batch, id);
CREATE INDEX baton_partitions_by_batch_state ON baton_partitions (batch, state, id);
-- Unfinished partitions by node: claims (a node's own and unassigned ones) and the orphans of
-- departed nodes.
CREATE INDEX baton_partitions_by_node ON baton_partitions (state, node, id);
