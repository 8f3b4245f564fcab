-- Locks one node record and reads it (the latest committed version), before anything else the
-- transaction locks; no row when the id is not registered.
--   ? node id.
SELECT seq, id, host, version, token, started_at, heartbeat_at,
       reported_load AS `load`, state, state_changed_at
FROM baton_nodes
WHERE id = ?
FOR UPDATE
