-- Reads one node record and holds it in share mode until commit: a claim keeps its node from
-- registering again, leaving or being swept while it draws its tokens, so every token of a claim
-- is below the token of any later incarnation. LOCK IN SHARE MODE is accepted by MariaDB and
-- MySQL 8 alike (MariaDB does not know FOR SHARE).
--   ? node id.
SELECT seq, id, host, version, token, started_at, heartbeat_at,
       reported_load AS `load`, state, state_changed_at
FROM baton_nodes
WHERE id = ?
LOCK IN SHARE MODE
