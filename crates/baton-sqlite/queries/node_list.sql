-- A page of nodes after seq ?1, in state ?2 (any state when NULL), at most ?3 rows, by seq.
SELECT seq, id, host, version, token, started_at, heartbeat_at, load, state, state_changed_at
FROM baton_nodes
WHERE seq > ?1 AND (?2 IS NULL OR state = ?2)
ORDER BY seq
LIMIT ?3
