-- Replaces a claimed partition's checkpoint and progress and stamps its heartbeat
-- (compare-and-set on its claim's token).
--   $1 partition id, $2 the claim's token, $3 checkpoint (JSON text), $4 progress.
-- Races. The conditions are checked again on the partition's latest version once any write in
-- flight commits: a rehoming, completion or failure that commits first makes this change nothing
-- and answer no row; one that comes later keeps this checkpoint whole.
-- Answers the partition as stored; no row when it is not claimed under the token.
UPDATE baton_partitions
SET checkpoint = $3,
    progress = $4,
    heartbeat_at = baton_now_ms()
WHERE id = $1
  AND token = $2
  AND state = 'claimed'
RETURNING id, batch, key, params, transferable, state, node, token, checkpoint, result, attempts,
          progress, created_at, claimed_at, heartbeat_at, finished_at, error
