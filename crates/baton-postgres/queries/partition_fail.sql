-- Fails a claimed partition with an error (compare-and-set on its claim's token).
--   $1 partition id, $2 the claim's token, $3 error (already cut to the length kept).
-- Races. As for a completion.
-- Answers the partition as stored; no row when it is not claimed under the token.
UPDATE baton_partitions
SET state = 'failed',
    error = $3,
    finished_at = baton_now_ms()
WHERE id = $1
  AND token = $2
  AND state = 'claimed'
RETURNING id, batch, key, params, transferable, state, node, token, checkpoint, result, attempts,
          progress, created_at, claimed_at, heartbeat_at, finished_at, error
