-- Reads the listed partitions, by id.
-- /*ids*/ is replaced by one placeholder per partition id.
SELECT id, batch, partition_key AS `key`, params, transferable, state, node, token, checkpoint, result,
       attempts, progress, created_at, claimed_at, heartbeat_at, finished_at, error
FROM baton_partitions
WHERE id IN (/*ids*/)
ORDER BY id
