-- The nodes a sweep judges, by seq: every active node (those that stay active give the oldest
-- heartbeat the sweep answers) and the unreachable ones whose last heartbeat is before ?1.
SELECT seq, id, host, version, token, started_at, heartbeat_at, load, state, state_changed_at
FROM baton_nodes
WHERE state = 'active' OR (state = 'unreachable' AND heartbeat_at < ?1)
ORDER BY seq
