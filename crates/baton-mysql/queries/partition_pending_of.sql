-- Locks, in id order, the pending partitions of one batch assigned to one node and answers their
-- ids (the latest versions: one claimed or moved since is no longer pending there).
--   ? node, batch.
SELECT id
FROM baton_partitions FORCE INDEX (baton_partitions_by_node)
WHERE node = ? AND state = 'pending' AND batch = ?
ORDER BY node, state, id
FOR UPDATE
