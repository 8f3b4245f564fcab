-- Reads the node whose id is ?1.
SELECT seq, id, host, version, token, started_at, heartbeat_at, load, state, state_changed_at
FROM baton_nodes
WHERE id = ?1
