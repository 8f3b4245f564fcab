-- The nodes a sweep may move on, by seq: the active ones whose last heartbeat is before ?1 and
-- the unreachable ones whose last heartbeat is before ?2.
SELECT seq, id, host, version, token, started_at, heartbeat_at, load, state, state_changed_at
FROM baton_nodes
WHERE (state = 'active' AND heartbeat_at < ?1) OR (state = 'unreachable' AND heartbeat_at < ?2)
ORDER BY seq
