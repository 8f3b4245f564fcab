-- A page of nodes by seq, after a cursor, optionally in one state.
--   ? last seq seen (0 for the first page), state (NULL: any), state, rows (page size + 1).
SELECT seq, id, host, version, token, started_at, heartbeat_at,
       reported_load AS `load`, state, state_changed_at
FROM baton_nodes
WHERE seq > ? AND (? IS NULL OR state = ?)
ORDER BY seq
LIMIT ?
