-- Locks, in id order, the listed partitions a node still holds, and reads their tokens (a
-- heartbeat stamps only those claimed under the token it gives).
-- /*ids*/ is replaced by one placeholder per partition id.
--   ? node, then the ids.
SELECT id, token
FROM baton_partitions
WHERE node = ? AND state = 'claimed' AND id IN (/*ids*/)
ORDER BY id
FOR UPDATE
