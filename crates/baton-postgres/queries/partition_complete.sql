-- Completes a claimed partition with its result (compare-and-set on its claim's token).
--   $1 partition id, $2 the claim's token, $3 result (JSON text, NULL: none).
-- Races. As for a checkpoint: a rehoming, completion or failure that commits first makes this
-- change nothing and answer no row (a requeued partition keeps its token but is no longer
-- claimed); one that comes later finds the partition final.
-- Answers the partition as stored; no row when it is not claimed under the token.
UPDATE baton_partitions
SET state = 'completed',
    result = $3,
    finished_at = baton_now_ms()
WHERE id = $1
  AND token = $2
  AND state = 'claimed'
RETURNING id, batch, key, params, transferable, state, node, token, checkpoint, result, attempts,
          progress, created_at, claimed_at, heartbeat_at, finished_at, error
