-- Registers node ?1 (host ?2, version ?3, load ?4) as a new incarnation under token ?5, active
-- from ?6. A node already known keeps its seq and has everything else replaced.
INSERT INTO baton_nodes (
    id, host, version, load, token, started_at, heartbeat_at, state, state_changed_at
)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6, 'active', ?6)
ON CONFLICT (id) DO UPDATE SET
    host = excluded.host,
    version = excluded.version,
    load = excluded.load,
    token = excluded.token,
    started_at = excluded.started_at,
    heartbeat_at = excluded.heartbeat_at,
    state = excluded.state,
    state_changed_at = excluded.state_changed_at
RETURNING seq, id, host, version, token, started_at, heartbeat_at, load, state, state_changed_at
