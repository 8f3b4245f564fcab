-- The ids of up to ?3 pending partitions of running batches assigned to node ?1 or to no one,
-- of the jobs in ?2 (a JSON array of names; any job when NULL), by id. Each of the two kinds is
-- read in id order from the (state, node, id) index and cut at ?3 before they are merged, so a
-- claim reads about ?3 partitions however many wait for other nodes.
WITH claimable AS NOT MATERIALIZED (
    SELECT p.id, p.node
    FROM baton_partitions AS p
    JOIN baton_batches AS b ON b.id = p.batch
    WHERE p.state = 'pending'
      AND b.state = 'running'
      AND (?2 IS NULL OR b.name IN (SELECT value FROM json_each(?2)))
),
assigned AS (SELECT id FROM claimable WHERE node = ?1 ORDER BY id LIMIT ?3),
unassigned AS (SELECT id FROM claimable WHERE node IS NULL ORDER BY id LIMIT ?3)
SELECT id FROM assigned
UNION ALL
SELECT id FROM unassigned
ORDER BY id
LIMIT ?3
