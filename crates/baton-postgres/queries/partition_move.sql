-- Moves pending partitions of a running batch from one node to an active one, in one statement
-- and one commit: those with the greatest ids, at most a count, leaving the source at least
-- the number it keeps; each is assigned to the target under a new token from
-- baton_fencing_tokens (ascending with the ids) and recorded in baton_partition_moves. When
-- some moved, notifies baton_partition_pending.
--   $1 batch, $2 source node, $3 target node, $4 partitions the source keeps, $5 most to move,
--   $6 reason ('join' or 'steal').
--
-- Races. The target node and the batch are locked in share mode, so that neither changes state
-- until the commit (a target leaving waits, then rehomes what it was given). The source's
-- pending partitions are locked in id order and judged on their latest versions: one claimed,
-- or moved by another leader applying the same plan, since this statement's snapshot is no
-- longer pending on the source and is left alone, so that the source keeps at least what the
-- plan left it and no partition goes to two nodes.
-- Answers the partitions moved, in no particular order.
WITH clock AS MATERIALIZED (
    SELECT baton_now_ms() AS now_ms
),
target AS MATERIALIZED (
    SELECT n.id FROM baton_nodes AS n WHERE n.id = $3 AND n.state = 'active' FOR SHARE
),
batch AS MATERIALIZED (
    SELECT b.id FROM baton_batches AS b WHERE b.id = $1 AND b.state = 'running' FOR SHARE
),
held AS MATERIALIZED (
    SELECT p.id
    FROM baton_partitions AS p
    WHERE p.batch = $1
      AND p.state = 'pending'
      AND p.node = $2
      AND EXISTS (SELECT 1 FROM target)
      AND EXISTS (SELECT 1 FROM batch)
    ORDER BY p.id
    FOR UPDATE OF p
),
movable AS MATERIALIZED (
    SELECT h.id
    FROM (SELECT h.id, row_number() OVER (ORDER BY h.id) AS place FROM held AS h) AS h
    WHERE h.place > $4
    ORDER BY h.id DESC
    LIMIT $5
),
tokens AS MATERIALIZED (
    SELECT m.id, nextval('baton_fencing_tokens') AS token
    FROM (SELECT m.id FROM movable AS m ORDER BY m.id) AS m
),
moved AS (
    UPDATE baton_partitions AS p
    SET node = $3,
        token = t.token
    FROM tokens AS t
    WHERE p.id = t.id
      AND p.id = ANY (ARRAY(SELECT t.id FROM tokens AS t))
    RETURNING p.id, p.batch, p.key, p.params, p.transferable, p.state, p.node, p.token,
              p.checkpoint, p.result, p.attempts, p.progress, p.created_at, p.claimed_at,
              p.heartbeat_at, p.finished_at, p.error
),
recorded AS (
    INSERT INTO baton_partition_moves
        (batch, partition_id, key, from_node, to_node, reason, token, moved_at)
    SELECT m.batch, m.id, m.key, $2, m.node, $6, m.token, c.now_ms
    FROM moved AS m
    CROSS JOIN clock AS c
    ORDER BY m.id
),
woken AS (
    -- The target claims them at once (delivered at commit).
    SELECT count(*) AS sent
    FROM (SELECT pg_notify('baton_partition_pending', '')
          WHERE EXISTS (SELECT 1 FROM moved)) AS notified
)
SELECT m.id, m.batch, m.key, m.params, m.transferable, m.state, m.node, m.token, m.checkpoint,
       m.result, m.attempts, m.progress, m.created_at, m.claimed_at, m.heartbeat_at,
       m.finished_at, m.error
FROM moved AS m
CROSS JOIN woken
