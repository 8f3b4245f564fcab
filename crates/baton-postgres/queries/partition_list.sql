-- One page of a batch's partitions by id (keyset pagination), optionally only those in one
-- state.
--   $1 batch id, $2 last id already seen (0 for the first page), $3 state (NULL: any), $4 rows
--   to read (page size + 1).
SELECT id, batch, key, params, transferable, state, node, token, checkpoint, result, attempts,
       progress, created_at, claimed_at, heartbeat_at, finished_at, error
FROM baton_partitions
WHERE batch = $1
  AND id > $2
  AND ($3::TEXT IS NULL OR state = $3::TEXT)
ORDER BY id
LIMIT $4
