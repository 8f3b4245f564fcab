-- Locks the nodes a sweep means to move, in seq order, and reads their latest versions; a node
-- locked by its own heartbeat, registration or claim at this moment is skipped (it is alive, or
-- the next sweep sees it), so a sweep never waits.
-- /*seqs*/ is replaced by one placeholder per node.
SELECT seq, id, host, version, token, started_at, heartbeat_at,
       reported_load AS `load`, state, state_changed_at
FROM baton_nodes
WHERE seq IN (/*seqs*/)
ORDER BY seq
FOR UPDATE SKIP LOCKED
