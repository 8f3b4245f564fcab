-- Stamps at ?1 the heartbeat of node ?2 with its load ?4, if it is active under token ?3.
UPDATE baton_nodes
SET heartbeat_at = ?1, load = ?4
WHERE id = ?2 AND token = ?3 AND state = 'active'
RETURNING seq, id, host, version, token, started_at, heartbeat_at, load, state, state_changed_at
