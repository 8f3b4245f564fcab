-- One page of nodes by seq (keyset pagination), optionally only those in one state.
--   $1 last seq already seen (0 for the first page), $2 state (NULL: any), $3 rows to read
--   (page size + 1).
SELECT seq, id, host, version, token, started_at, heartbeat_at, load, state, state_changed_at
FROM baton_nodes
WHERE seq > $1
  AND ($2::TEXT IS NULL OR state = $2::TEXT)
ORDER BY seq
LIMIT $3
