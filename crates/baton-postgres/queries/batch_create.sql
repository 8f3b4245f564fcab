-- Creates a running batch and all its partitions, pending and numbered in the order given, in
-- one statement and one commit, and notifies baton_partition_pending; the caller has checked
-- the partitions first.
--   $1 job name, $2 strategy, $3 partition keys, $4 their parameters (JSON text), $5 whether
--   each is transferable, $6 the node each is assigned to (NULL: any node) (pairwise arrays),
--   $7 whether idle nodes steal pending partitions.
-- Answers the batch.
WITH clock AS MATERIALIZED (
    SELECT baton_now_ms() AS now_ms
),
batch AS (
    INSERT INTO baton_batches AS b (name, strategy, stealing, state, created_at)
    SELECT $1, $2, $7, 'running', c.now_ms
    FROM clock AS c
    RETURNING b.id, b.name, b.strategy, b.stealing, b.state, b.created_at, b.finished_at,
              b.failure
),
partitions AS (
    INSERT INTO baton_partitions (batch, key, params, transferable, state, node, created_at)
    SELECT b.id, s.key, s.params, s.transferable, 'pending', s.node, b.created_at
    FROM batch AS b
    CROSS JOIN unnest($3::TEXT[], $4::TEXT[], $5::BOOLEAN[], $6::TEXT[]) WITH ORDINALITY
        AS s (key, params, transferable, node, position)
    ORDER BY s.position
),
woken AS (
    -- The nodes claim the new partitions at once (delivered at commit).
    SELECT count(*) AS sent FROM (SELECT pg_notify('baton_partition_pending', '')) AS notified
)
SELECT b.id, b.name, b.strategy, b.stealing, b.state, b.created_at, b.finished_at,
       b.failure
FROM batch AS b
CROSS JOIN woken
