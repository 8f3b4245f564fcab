-- Locks, in id order, a node's partitions in either of two states and reads them (the latest
-- versions): the claimed ones of a previous incarnation, or everything a leaving node has.
--   ? node, state, state.
SELECT id, batch, partition_key AS `key`, params, transferable, state, node, token, checkpoint, result,
       attempts, progress, created_at, claimed_at, heartbeat_at, finished_at, error
FROM baton_partitions
WHERE node = ? AND state IN (?, ?)
ORDER BY id
FOR UPDATE
