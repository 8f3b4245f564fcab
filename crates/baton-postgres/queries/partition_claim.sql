-- Claims pending partitions for a node, lowest id first, each under a new token drawn in id
-- order, in one statement and one commit: those assigned to the node or to no one, of batches of
-- the jobs named.
--   $1 node id, $2 the token of its incarnation, $3 most partitions, $4 job names (empty: any).
--
-- Races. The node's record is held (FOR SHARE) from the check that it is active under its token
-- until commit, so no registration, leave or sweep of the node commits in between, and every
-- token drawn here is below the token of any later incarnation (see node_register.sql).
-- Candidates are locked with SKIP LOCKED: racing claimers never wait for each other nor take the
-- same partition, and a partition being rehomed is left for a later claim. A pending partition
-- belongs to a running batch (a batch finishes only once every partition is final), so batches
-- are read only to filter by job.
-- Answers one row per partition claimed, by id, or a single row with a NULL id, each carrying
-- whether the node is active under its token.
WITH clock AS MATERIALIZED (
    SELECT baton_now_ms() AS now_ms
),
claimer AS MATERIALIZED (
    SELECT n.id
    FROM baton_nodes AS n
    WHERE n.id = $1
      AND n.token = $2
      AND n.state = 'active'
    FOR SHARE
),
candidates AS MATERIALIZED (
    SELECT p.id
    FROM baton_partitions AS p
    WHERE p.state = 'pending'
      AND (p.node IS NULL OR p.node = $1)
      AND (cardinality($4::TEXT[]) = 0
           OR p.batch = ANY (ARRAY(
               SELECT b.id
               FROM baton_batches AS b
               WHERE b.name = ANY ($4::TEXT[]) AND b.state = 'running'
           )))
      AND EXISTS (SELECT 1 FROM claimer)
    ORDER BY p.id
    LIMIT $3
    FOR UPDATE OF p SKIP LOCKED
),
tokens AS MATERIALIZED (
    SELECT c.id, nextval('baton_fencing_tokens') AS token
    FROM (SELECT c.id FROM candidates AS c ORDER BY c.id) AS c
),
claimed AS (
    UPDATE baton_partitions AS p
    SET state = 'claimed',
        node = $1,
        token = t.token,
        attempts = p.attempts + 1,
        claimed_at = c.now_ms,
        heartbeat_at = c.now_ms
    FROM tokens AS t
    CROSS JOIN clock AS c
    WHERE p.id = t.id
      AND p.id = ANY (ARRAY(SELECT t.id FROM tokens AS t))
    RETURNING p.id, p.batch, p.key, p.params, p.transferable, p.state, p.node, p.token,
              p.checkpoint, p.result, p.attempts, p.progress, p.created_at, p.claimed_at,
              p.heartbeat_at, p.finished_at, p.error
)
SELECT EXISTS (SELECT 1 FROM claimer) AS active,
       p.id, p.batch, p.key, p.params, p.transferable, p.state, p.node, p.token, p.checkpoint,
       p.result, p.attempts, p.progress, p.created_at, p.claimed_at, p.heartbeat_at,
       p.finished_at, p.error
FROM (SELECT) AS one
LEFT JOIN claimed AS p ON TRUE
ORDER BY p.id
