-- Rewrites a locked node record as a new incarnation, active from now; seq is kept.
--   ? host, version, token, now (ms), now, load, now, seq.
UPDATE baton_nodes
SET host = ?, version = ?, token = ?, started_at = ?, heartbeat_at = ?, reported_load = ?,
    state = 'active', state_changed_at = ?
WHERE seq = ?
