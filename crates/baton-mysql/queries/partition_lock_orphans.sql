-- Locks, in id order, the listed partitions that are still pending or claimed by some node,
-- and reads their latest versions; one being claimed, checkpointed or finished at this moment
-- is skipped (left for the next reassignment), so a reassignment never waits.
-- /*ids*/ is replaced by one placeholder per partition id.
SELECT id, batch, partition_key AS `key`, params, transferable, state, node, token, checkpoint, result,
       attempts, progress, created_at, claimed_at, heartbeat_at, finished_at, error
FROM baton_partitions
WHERE id IN (/*ids*/) AND state IN ('pending', 'claimed') AND node IS NOT NULL
ORDER BY id
FOR UPDATE SKIP LOCKED
