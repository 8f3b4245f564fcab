-- Replaces a claimed partition's checkpoint and progress and stamps its heartbeat
-- (compare-and-set on its claim's token), in the caller's transaction, so that it commits or
-- rolls back with the caller's own writes.
--   $1 partition id, $2 the claim's token, $3 checkpoint (JSON text), $4 progress.
-- Races. The partition stays locked until the caller's transaction ends: a heartbeat, rehoming
-- or completion waits for it. One that commits first makes this change nothing and answer no
-- row, once any write in flight has committed.
-- Answers the partition's id; no row when it is not claimed under the token.
UPDATE baton_partitions
SET checkpoint = $3,
    progress = $4,
    heartbeat_at = baton_now_ms()
WHERE id = $1
  AND token = $2
  AND state = 'claimed'
RETURNING id
