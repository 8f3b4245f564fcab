-- The ids of the pending partitions of running batch ?1 on node ?2 that a move to node ?5 takes:
-- the greatest, at most ?4, leaving node ?2 its ?3 lowest; none unless node ?5 is active.
SELECT id
FROM (
    SELECT p.id, ROW_NUMBER() OVER (ORDER BY p.id) AS place
    FROM baton_partitions AS p
    WHERE p.batch = ?1 AND p.state = 'pending' AND p.node = ?2
      AND EXISTS (SELECT 1 FROM baton_batches WHERE id = ?1 AND state = 'running')
      AND EXISTS (SELECT 1 FROM baton_nodes WHERE id = ?5 AND state = 'active')
)
WHERE place > ?3
ORDER BY id DESC
LIMIT ?4
