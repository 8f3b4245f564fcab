-- One node's heartbeat and its claimed partitions', in one statement and one commit: the node
-- is stamped with the server's time and its load, and each listed partition it still holds
-- under the token given with the same time and its progress.
--   $1 node id, $2 the token of its incarnation, $3 load, $4 partition ids, $5 their claims'
--   tokens, $6 their progress (pairwise arrays).
-- Progress only grows: a heartbeat that waited behind a checkpoint must not set it back.
--
-- Races. The node is stamped only while active under its token: a registration, leave or sweep
-- that commits first leaves it unchanged and nothing is answered. Its partitions are locked in
-- id order and stamped only while still claimed by it under the token given: a checkpoint or
-- completion in flight is waited for, and a rehoming or completion that commits first makes the
-- partition lost.
-- Answers one row per partition stamped (stamped_id and stamped_token), or a single row with
-- NULL ones, each carrying the node as stored; no row when the node is not active under its
-- token.
WITH clock AS MATERIALIZED (
    SELECT baton_now_ms() AS now_ms
),
node AS (
    UPDATE baton_nodes AS n
    SET heartbeat_at = c.now_ms,
        load = $3
    FROM clock AS c
    WHERE n.id = $1
      AND n.token = $2
      AND n.state = 'active'
    RETURNING n.seq, n.id, n.host, n.version, n.token, n.started_at, n.heartbeat_at, n.load,
              n.state, n.state_changed_at
),
held AS MATERIALIZED (
    SELECT p.id
    FROM baton_partitions AS p
    WHERE p.id = ANY ($4::BIGINT[])
      AND p.node = $1
      AND p.state = 'claimed'
      AND EXISTS (SELECT 1 FROM node)
    ORDER BY p.id
    FOR UPDATE
),
stamped AS (
    UPDATE baton_partitions AS p
    SET heartbeat_at = c.now_ms,
        progress = GREATEST(p.progress, beat.progress)
    FROM clock AS c,
         unnest($4::BIGINT[], $5::BIGINT[], $6::BIGINT[]) AS beat (id, token, progress)
    WHERE p.id = beat.id
      AND p.id = ANY (ARRAY(SELECT h.id FROM held AS h))
      AND p.token = beat.token
    RETURNING p.id, p.token
)
SELECT n.seq, n.id, n.host, n.version, n.token, n.started_at, n.heartbeat_at, n.load, n.state,
       n.state_changed_at, s.id AS stamped_id, s.token AS stamped_token
FROM node AS n
LEFT JOIN stamped AS s ON TRUE
