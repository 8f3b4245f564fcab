-- Reads a batch with what baton_core::cluster::verdict needs to finish it: how many of its
-- partitions are unfinished and failed, and the first failed ones by id with their errors. A
-- final partition never changes, so a tally without unfinished partitions never goes stale.
--   $1 batch id, $2 most failed partitions listed.
SELECT b.id, b.name, b.strategy, b.stealing, b.state, b.created_at, b.finished_at, b.failure,
       t.unfinished, t.failed,
       ARRAY(SELECT p.key
             FROM baton_partitions AS p
             WHERE p.batch = b.id AND p.state = 'failed'
             ORDER BY p.id
             LIMIT $2) AS failed_keys,
       ARRAY(SELECT COALESCE(p.error, '')
             FROM baton_partitions AS p
             WHERE p.batch = b.id AND p.state = 'failed'
             ORDER BY p.id
             LIMIT $2) AS failed_errors
FROM baton_batches AS b
CROSS JOIN LATERAL (
    SELECT count(*) FILTER (WHERE p.state IN ('pending', 'claimed')) AS unfinished,
           count(*) FILTER (WHERE p.state = 'failed') AS failed
    FROM baton_partitions AS p
    WHERE p.batch = b.id
) AS t
WHERE b.id = $1
