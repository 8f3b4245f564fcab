-- Marks an active node as left, records the change, and rehomes its pending and claimed
-- partitions over the other live nodes (baton_partition_fates, departure 'left'), in one
-- statement and one commit; when some partition went back to pending, notifies
-- baton_partition_pending.
--   $1 node id, $2 the token of its incarnation.
--
-- Races. The node is changed only while active under its token, and its record is locked before
-- any partition. Its partitions are locked in id order with their latest versions: one claimed
-- by it after this statement's snapshot but before the lock (still pending in the snapshot) is
-- rehomed as claimed, a checkpoint or completion that commits first is kept, one that comes
-- later finds the partition no longer claimed under its token. An unassigned partition it
-- claimed in that window is not seen here; it stays claimed by a node that is not active, which
-- the next reassignment rehomes.
-- Answers the node as stored; no row when it is not active under its token.
WITH clock AS MATERIALIZED (
    SELECT baton_now_ms() AS now_ms
),
node AS (
    UPDATE baton_nodes AS n
    SET state = 'left',
        state_changed_at = c.now_ms
    FROM clock AS c
    WHERE n.id = $1
      AND n.token = $2
      AND n.state = 'active'
    RETURNING n.seq, n.id, n.host, n.version, n.token, n.started_at, n.heartbeat_at, n.load,
              n.state, n.state_changed_at
),
recorded AS (
    INSERT INTO baton_node_changes (node, token, from_state, to_state, changed_at, reason)
    SELECT n.id, n.token, 'active', n.state, n.state_changed_at, 'left'
    FROM node AS n
),
orphans AS MATERIALIZED (
    SELECT p.id, p.key, p.node, p.state, p.transferable, b.strategy
    FROM baton_partitions AS p
    JOIN baton_batches AS b ON b.id = p.batch
    WHERE p.node = $1
      AND p.state IN ('pending', 'claimed')
      AND EXISTS (SELECT 1 FROM node)
    ORDER BY p.id
    FOR UPDATE OF p
),
fates AS (
    SELECT f.id, f.node, f.error
    FROM baton_partition_fates(
        ARRAY(SELECT ROW(o.id, o.key, o.node, 'left', o.state = 'claimed', o.transferable,
                         o.strategy = 'free-for-all')::baton_orphan
              FROM orphans AS o
              ORDER BY o.id),
        ARRAY(SELECT ROW(n.id, n.load)::baton_node_load
              FROM baton_nodes AS n
              WHERE n.state = 'active' AND n.id <> $1)
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
