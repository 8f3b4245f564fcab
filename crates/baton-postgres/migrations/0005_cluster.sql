-- Cluster membership and partitioned batches. Every instant is a BIGINT count of milliseconds
-- since the Unix epoch on this server's clock (baton_now_ms()). Node and partition tokens come
-- from baton_fencing_tokens, the sequence leases and executions draw from, so they only grow.
-- Parameters, checkpoints and results are JSON kept as TEXT, byte for byte, never parsed.
--
-- Statements that wait for locks take a node's record before its partitions, and several
-- partitions in id order; the others lock with SKIP LOCKED and never wait. None can deadlock.

-- One record per node id, rewritten by each registration (a new incarnation under a new token);
-- seq is assigned by the first registration and kept.
CREATE TABLE baton_nodes (
    seq              BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id               TEXT COLLATE "C" NOT NULL UNIQUE,
    host             TEXT NOT NULL,
    version          TEXT NOT NULL,
    token            BIGINT NOT NULL CHECK (token > 0),
    started_at       BIGINT NOT NULL,
    heartbeat_at     BIGINT NOT NULL,
    load             BIGINT NOT NULL CHECK (load >= 0),
    state            TEXT NOT NULL CHECK (state IN ('active', 'unreachable', 'removed', 'left')),
    state_changed_at BIGINT NOT NULL
);

-- The nodes a sweep may move on, by seq. Removed and left nodes, which pile up as nodes come
-- and go, stay out of it.
CREATE INDEX baton_nodes_sweepable ON baton_nodes (seq) WHERE state IN ('active', 'unreachable');

-- Every change of a node's state (I8); token is the incarnation concerned.
CREATE TABLE baton_node_changes (
    id         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    node       TEXT COLLATE "C" NOT NULL,
    token      BIGINT NOT NULL CHECK (token > 0),
    from_state TEXT CHECK (from_state IN ('active', 'unreachable', 'removed', 'left')),
    to_state   TEXT NOT NULL CHECK (to_state IN ('active', 'unreachable', 'removed', 'left')),
    changed_at BIGINT NOT NULL,
    reason     TEXT NOT NULL
        CHECK (reason IN ('registered', 'reregistered', 'no-heartbeat', 'left'))
);

CREATE INDEX baton_node_changes_by_node ON baton_node_changes (node, id);

-- One run of a partitioned job.
CREATE TABLE baton_batches (
    id          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name        TEXT COLLATE "C" NOT NULL,
    strategy    TEXT NOT NULL CHECK (
        strategy ~ '^(round-robin|least-loaded|free-for-all|fixed-node-count\([1-9][0-9]*\))$'),
    state       TEXT NOT NULL CHECK (state IN ('running', 'succeeded', 'failed')),
    created_at  BIGINT NOT NULL,
    finished_at BIGINT,
    failure     TEXT,
    CHECK ((state = 'running') = (finished_at IS NULL)),
    CHECK ((state = 'failed') = (failure IS NOT NULL))
);

CREATE INDEX baton_batches_by_name ON baton_batches (name, id);

-- The partitions of every batch. node is the node a pending partition is assigned to (NULL: any
-- node may claim it) or the one that claimed it; token is the token of its latest claim, kept
-- when it is requeued, and current only while it is claimed.
CREATE TABLE baton_partitions (
    id           BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    batch        BIGINT NOT NULL REFERENCES baton_batches (id),
    key          TEXT COLLATE "C" NOT NULL,
    params       TEXT NOT NULL,
    transferable BOOLEAN NOT NULL,
    state        TEXT NOT NULL CHECK (state IN ('pending', 'claimed', 'completed', 'failed')),
    node         TEXT COLLATE "C",
    token        BIGINT CHECK (token > 0),
    checkpoint   TEXT,
    result       TEXT,
    attempts     BIGINT NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    progress     BIGINT NOT NULL DEFAULT 0 CHECK (progress >= 0),
    created_at   BIGINT NOT NULL,
    claimed_at   BIGINT,
    heartbeat_at BIGINT,
    finished_at  BIGINT,
    error        TEXT,
    UNIQUE (batch, key),
    CHECK ((state IN ('pending', 'claimed')) = (finished_at IS NULL)),
    CHECK (state <> 'claimed' OR (node IS NOT NULL AND token IS NOT NULL))
);

-- A batch's partitions by id: listings and the tally that finishes the batch.
CREATE INDEX baton_partitions_by_batch ON baton_partitions (batch, id);
-- What nodes claim, lowest id first.
CREATE INDEX baton_partitions_pending ON baton_partitions (id) WHERE state = 'pending';
-- The unfinished partitions of each node, for a registration, a leave and reassignment.
CREATE INDEX baton_partitions_unfinished_by_node ON baton_partitions (node, id)
    WHERE state IN ('pending', 'claimed');

-- A queue table, like baton_executions: statistics must follow bursts of claims closely.
ALTER TABLE baton_partitions SET (
    autovacuum_vacuum_scale_factor = 0.02,
    autovacuum_analyze_scale_factor = 0.02
);

-- A pending or claimed partition whose node can no longer run it, as baton_partition_fates
-- reads it. departure is why, as baton_core::cluster::Departure names it: 'unreachable',
-- 'removed', 'left', 'reregistered' or 'unregistered'.
CREATE TYPE baton_orphan AS (
    id           BIGINT,
    key          TEXT,
    node         TEXT,
    departure    TEXT,
    claimed      BOOLEAN,
    transferable BOOLEAN,
    free_for_all BOOLEAN
);

-- A live node and its reported load.
CREATE TYPE baton_node_load AS (
    id   TEXT,
    load BIGINT
);

-- Decides what becomes of orphaned partitions, as baton_core::cluster::rehome does: a claimed
-- partition that is not transferable fails, naming its node and why; every other one goes back
-- to pending, unassigned in a free-for-all batch or when no node is live, otherwise to the live
-- node whose load plus the orphans given to it so far is least (ties to the smaller id).
--
-- That balancer hands out, in turn, the least of the pairs (load + n, node id) for n = 0, 1, ...
-- of every live node, so the k-th orphan it places goes to the node of the k-th least pair. No
-- pair above the ceiling below is ever needed: for every k, the k least-loaded nodes alone offer
-- enough pairs up to their k-th load + ceil(orphans placed / k) - 1.
--
-- Answers each orphan, in the order given, with its node (a failed one keeps its own) and its
-- error (NULL when it is requeued).
CREATE FUNCTION baton_partition_fates(orphans baton_orphan[], live baton_node_load[])
    RETURNS TABLE (id BIGINT, node TEXT, error TEXT)
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
        WITH orphan AS (
            SELECT o.id, o.key, o.node, o.departure, o.free_for_all, o.position,
                   o.claimed AND NOT o.transferable AS stuck
            FROM unnest(orphans) WITH ORDINALITY
                AS o (id, key, node, departure, claimed, transferable, free_for_all, position)
        ),
        placed AS (
            SELECT o.id, row_number() OVER (ORDER BY o.position) AS pick
            FROM orphan AS o
            WHERE NOT o.stuck AND NOT o.free_for_all
        ),
        ceiling AS (
            SELECT min(n.load + ceil(p.picks / n.k::NUMERIC)::BIGINT - 1) AS load
            FROM (SELECT l.load, row_number() OVER (ORDER BY l.load) AS k
                  FROM unnest(live) AS l) AS n
            CROSS JOIN (SELECT count(*) AS picks FROM placed) AS p
        ),
        offered AS (
            SELECT l.id, row_number() OVER (ORDER BY l.load + step, l.id COLLATE "C") AS pick
            FROM unnest(live) AS l
            CROSS JOIN ceiling AS c
            CROSS JOIN generate_series(0, c.load - l.load) AS step
        )
        SELECT o.id,
               CASE WHEN o.stuck THEN o.node ELSE s.id END,
               CASE WHEN o.stuck THEN
                   'node ' || o.node || ' '
                   || CASE o.departure
                          WHEN 'unreachable' THEN 'is unreachable'
                          WHEN 'removed' THEN 'was removed'
                          WHEN 'left' THEN 'left'
                          WHEN 'reregistered' THEN 'registered again as a new incarnation'
                          ELSE 'is not registered'
                      END
                   || '; partition ' || o.key || ' is not transferable'
               END
        FROM orphan AS o
        LEFT JOIN placed AS p ON p.id = o.id
        LEFT JOIN offered AS s ON s.pick = p.pick
        ORDER BY o.position
    $$;
