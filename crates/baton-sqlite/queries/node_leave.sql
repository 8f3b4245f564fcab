-- Marks node ?2 as left at ?1, if it is active under token ?3.
UPDATE baton_nodes
SET state = 'left', state_changed_at = ?1
WHERE id = ?2 AND token = ?3 AND state = 'active'
RETURNING seq, id, host, version, token, started_at, heartbeat_at, load, state, state_changed_at
