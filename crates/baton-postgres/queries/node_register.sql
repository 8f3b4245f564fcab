-- Registers a node as a new incarnation under a new token, active from now, records the change,
-- and rehomes the partitions the previous incarnation had claimed (baton_partition_fates,
-- departure 'reregistered'), in one statement and one commit. Partitions only assigned to the
-- id stay for the new incarnation to claim. When some partition went back to pending, notifies
-- baton_partition_pending.
--   $1 node id, $2 host, $3 version, $4 load.
--
-- Races. The record of a known id is locked first, and the new token drawn only then. A claim
-- holds its node's record (FOR SHARE) while it draws its tokens, so every partition the previous
-- incarnation claimed has a token below the new one, and every claim of the new incarnation one
-- above it. The previous incarnation's claimed partitions are locked in id order: a checkpoint,
-- completion or failure of one of them that commits first is kept (locking returns the latest
-- version), one that comes later finds it no longer claimed under its token. Partitions are
-- found through this statement's snapshot, so a claim that committed while this statement waited
-- for the record is not seen here: its partitions keep tokens below the node's, and the next
-- reassignment (partition_reassign.sql) rehomes them as orphans.
--
-- A first registration inserts the record. When another session inserted the same id after this
-- statement's snapshot, nothing changes and no row is answered: the caller runs the statement
-- again, which then finds and locks the record.
-- Answers the node as stored.
WITH clock AS MATERIALIZED (
    SELECT baton_now_ms() AS now_ms
),
previous AS MATERIALIZED (
    SELECT n.id, n.state
    FROM baton_nodes AS n
    WHERE n.id = $1
    FOR UPDATE
),
replaced AS (
    UPDATE baton_nodes AS n
    SET host = $2,
        version = $3,
        token = nextval('baton_fencing_tokens'),
        started_at = c.now_ms,
        heartbeat_at = c.now_ms,
        load = $4,
        state = 'active',
        state_changed_at = c.now_ms
    FROM previous AS p
    CROSS JOIN clock AS c
    WHERE n.id = p.id
    RETURNING n.seq, n.id, n.host, n.version, n.token, n.started_at, n.heartbeat_at, n.load,
              n.state, n.state_changed_at, p.state AS from_state
),
inserted AS (
    INSERT INTO baton_nodes AS n
        (id, host, version, token, started_at, heartbeat_at, load, state, state_changed_at)
    SELECT $1, $2, $3, nextval('baton_fencing_tokens'), c.now_ms, c.now_ms, $4, 'active',
           c.now_ms
    FROM clock AS c
    WHERE NOT EXISTS (SELECT 1 FROM previous)
    ON CONFLICT (id) DO NOTHING
    RETURNING n.seq, n.id, n.host, n.version, n.token, n.started_at, n.heartbeat_at, n.load,
              n.state, n.state_changed_at, NULL::TEXT AS from_state
),
node AS (
    SELECT * FROM replaced
    UNION ALL
    SELECT * FROM inserted
),
recorded AS (
    INSERT INTO baton_node_changes (node, token, from_state, to_state, changed_at, reason)
    SELECT n.id, n.token, n.from_state, n.state, n.started_at,
           CASE WHEN n.from_state IS NULL THEN 'registered' ELSE 'reregistered' END
    FROM node AS n
),
orphans AS MATERIALIZED (
    SELECT p.id, p.key, p.node, p.transferable, b.strategy
    FROM baton_partitions AS p
    JOIN baton_batches AS b ON b.id = p.batch
    WHERE p.node = $1
      AND p.state = 'claimed'
      AND EXISTS (SELECT 1 FROM previous)
    ORDER BY p.id
    FOR UPDATE OF p
),
live AS (
    -- The new incarnation is live; the snapshot still shows the record as it was.
    SELECT n.id, n.load FROM baton_nodes AS n WHERE n.state = 'active' AND n.id <> $1
    UNION ALL
    SELECT n.id, n.load FROM node AS n
),
fates AS (
    SELECT f.id, f.node, f.error
    FROM baton_partition_fates(
        ARRAY(SELECT ROW(o.id, o.key, o.node, 'reregistered', TRUE, o.transferable,
                         o.strategy = 'free-for-all')::baton_orphan
              FROM orphans AS o
              ORDER BY o.id),
        ARRAY(SELECT ROW(l.id, l.load)::baton_node_load FROM live AS l)
    ) AS f
),
rehomed AS (
    UPDATE baton_partitions AS p
    SET state = CASE WHEN f.error IS NULL THEN 'pending' ELSE 'failed' END,
        node = f.node,
        error = f.error,
        finished_at = CASE WHEN f.error IS NULL THEN p.finished_at ELSE c.now_ms END
    FROM fates AS f
    CROSS JOIN clock AS c
    WHERE p.id = f.id
      AND p.id = ANY (ARRAY(SELECT f.id FROM fates AS f))
    RETURNING p.id, p.batch, p.key, p.node, p.state
),
recorded_moves AS (
    -- Each partition requeued is recorded as a failover move off its departed node.
    INSERT INTO baton_partition_moves
        (batch, partition_id, key, from_node, to_node, reason, moved_at)
    SELECT r.batch, r.id, r.key, $1, r.node, 'failover', c.now_ms
    FROM rehomed AS r
    CROSS JOIN clock AS c
    WHERE r.state = 'pending'
    ORDER BY r.id
),
woken AS (
    -- Other nodes claim the requeued partitions at once (delivered at commit).
    SELECT count(*) AS sent
    FROM (SELECT pg_notify('baton_partition_pending', '')
          WHERE EXISTS (SELECT 1 FROM rehomed AS r WHERE r.state = 'pending')) AS notified
)
SELECT n.seq, n.id, n.host, n.version, n.token, n.started_at, n.heartbeat_at, n.load, n.state,
       n.state_changed_at
FROM node AS n
CROSS JOIN woken
