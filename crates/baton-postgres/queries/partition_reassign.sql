-- Rehomes, lowest id first and up to a limit, the pending and claimed partitions whose node can
-- no longer run them (baton_partition_fates), in one statement and one commit: those of a node
-- that is not active or not registered, and those claimed under a token older than their node's
-- incarnation (left by a claim that committed while the node registered again; see
-- node_register.sql), whose departure is 'reregistered'.
--   $1 most partitions.
--
-- Races. Candidates are found in this statement's snapshot, then judged again on the latest
-- versions of their nodes and of themselves, both locked with SKIP LOCKED, so that this statement
-- never waits: a node being heartbeated, registered or leaving, or a partition being claimed,
-- checkpointed or finished, is left for the next reassignment. While the nodes stay locked none
-- of them registers again or changes state; a partition that a checkpoint or completion changed
-- first is judged as it is now (a completed one is left alone), and one that comes later finds it
-- no longer claimed under its token. A node registered after the snapshot looks unregistered,
-- which only moves partitions assigned to it and never claimed.
--
-- Cost. Finding the candidates reads every unfinished partition with its node (a partition can
-- be assigned to an id that was never registered, which no index on the nodes reveals).
-- Each partition requeued is recorded as a failover move. When some partition went back to
-- pending, notifies baton_partition_pending.
-- Answers the partitions rehomed, in no particular order: requeued ones pending, the others
-- failed.
WITH clock AS MATERIALIZED (
    SELECT baton_now_ms() AS now_ms
),
candidates AS MATERIALIZED (
    SELECT p.id, p.node
    FROM baton_partitions AS p
    LEFT JOIN baton_nodes AS n ON n.id = p.node
    WHERE p.state IN ('pending', 'claimed')
      AND p.node IS NOT NULL
      AND (n.id IS NULL OR n.state <> 'active' OR (p.state = 'claimed' AND p.token < n.token))
    ORDER BY p.id
    LIMIT $1
),
nodes AS MATERIALIZED (
    SELECT n.id, n.state, n.token
    FROM baton_nodes AS n
    WHERE n.id = ANY (ARRAY(SELECT c.node FROM candidates AS c))
    ORDER BY n.id
    FOR SHARE SKIP LOCKED
),
locked AS MATERIALIZED (
    SELECT p.id, p.batch, p.key, p.node, p.state, p.token, p.transferable
    FROM baton_partitions AS p
    WHERE p.id = ANY (ARRAY(SELECT c.id FROM candidates AS c))
      AND p.state IN ('pending', 'claimed')
      AND p.node IS NOT NULL
    ORDER BY p.id
    FOR UPDATE OF p SKIP LOCKED
),
orphans AS MATERIALIZED (
    SELECT l.id, l.key, l.node, l.state = 'claimed' AS claimed, l.transferable,
           b.strategy = 'free-for-all' AS free_for_all,
           CASE
               WHEN n.id IS NULL THEN 'unregistered'
               WHEN n.state = 'active' THEN 'reregistered'
               ELSE n.state
           END AS departure
    FROM locked AS l
    JOIN baton_batches AS b ON b.id = l.batch
    LEFT JOIN nodes AS n ON n.id = l.node
    WHERE CASE
              WHEN n.id IS NULL THEN
                  NOT EXISTS (SELECT 1 FROM baton_nodes AS r WHERE r.id = l.node)
              ELSE n.state <> 'active' OR (l.state = 'claimed' AND l.token < n.token)
          END
),
fates AS (
    SELECT f.id, f.node, f.error
    FROM baton_partition_fates(
        ARRAY(SELECT ROW(o.id, o.key, o.node, o.departure, o.claimed, o.transferable,
                         o.free_for_all)::baton_orphan
              FROM orphans AS o
              ORDER BY o.id),
        ARRAY(SELECT ROW(n.id, n.load)::baton_node_load
              FROM baton_nodes AS n
              WHERE n.state = 'active')
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
    RETURNING p.id, p.batch, p.key, p.params, p.transferable, p.state, p.node, p.token,
              p.checkpoint, p.result, p.attempts, p.progress, p.created_at, p.claimed_at,
              p.heartbeat_at, p.finished_at, p.error
),
recorded_moves AS (
    -- Each partition requeued is recorded as a failover move off its departed node.
    INSERT INTO baton_partition_moves
        (batch, partition_id, key, from_node, to_node, reason, moved_at)
    SELECT r.batch, r.id, r.key, l.node, r.node, 'failover', c.now_ms
    FROM rehomed AS r
    JOIN locked AS l ON l.id = r.id
    CROSS JOIN clock AS c
    WHERE r.state = 'pending'
    ORDER BY r.id
),
woken AS (
    -- The nodes that will claim the requeued partitions do so at once (delivered at commit).
    SELECT count(*) AS sent
    FROM (SELECT pg_notify('baton_partition_pending', '')
          WHERE EXISTS (SELECT 1 FROM rehomed AS r WHERE r.state = 'pending')) AS notified
)
SELECT r.id, r.batch, r.key, r.params, r.transferable, r.state, r.node, r.token, r.checkpoint,
       r.result, r.attempts, r.progress, r.created_at, r.claimed_at, r.heartbeat_at,
       r.finished_at, r.error
FROM rehomed AS r
CROSS JOIN woken
