-- The nodes a sweep judges, by seq: the active and unreachable ones (a plain read; the sweep
-- then locks only those it moves).
SELECT seq, id, host, version, token, started_at, heartbeat_at,
       reported_load AS `load`, state, state_changed_at
FROM baton_nodes
WHERE state IN ('active', 'unreachable')
ORDER BY seq
