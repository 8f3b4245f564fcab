-- Moves silent nodes on, as baton_core::cluster::next_state does, on this server's clock, and
-- records each change (reason 'no-heartbeat'), in one statement and one commit: an active or
-- unreachable node whose last heartbeat is older than the removal threshold is removed, an
-- active one older than the unreachable threshold becomes unreachable.
--   $1 unreachable after (ms), $2 removed after (ms).
--
-- Races. Nodes are judged on their latest versions, locked in seq order with SKIP LOCKED: a
-- heartbeat that commits first keeps its node active, and a node being heartbeated, registered
-- or claimed for at this moment is left for the next sweep, so a sweep never waits. A heartbeat,
-- claim or leave that comes after a sweep moved its node finds it no longer active.
-- Answers one row for the sweep, with the server's time (now_ms) and the oldest heartbeat of the
-- nodes left active (oldest_active, NULL when none is; read on this statement's snapshot, which
-- the updates here do not change, leaving out the nodes they move), joined to each change
-- recorded, in seq order of their nodes (a sweep that moved nothing answers the one row with
-- NULL change columns). A node left for the next sweep because it was locked counts as active
-- with the heartbeat the snapshot shows.
WITH clock AS MATERIALIZED (
    SELECT baton_now_ms() AS now_ms
),
silent AS MATERIALIZED (
    SELECT n.seq, n.state AS from_state,
           CASE WHEN c.now_ms - n.heartbeat_at > $2 THEN 'removed' ELSE 'unreachable' END
               AS to_state
    FROM baton_nodes AS n
    CROSS JOIN clock AS c
    WHERE n.state IN ('active', 'unreachable')
      AND (c.now_ms - n.heartbeat_at > $2
           OR (n.state = 'active' AND c.now_ms - n.heartbeat_at > $1))
    ORDER BY n.seq
    FOR UPDATE OF n SKIP LOCKED
),
moved AS (
    UPDATE baton_nodes AS n
    SET state = s.to_state,
        state_changed_at = c.now_ms
    FROM silent AS s
    CROSS JOIN clock AS c
    WHERE n.seq = s.seq
    RETURNING n.seq, n.id, n.token, s.from_state, n.state, n.state_changed_at
),
recorded AS (
    INSERT INTO baton_node_changes (node, token, from_state, to_state, changed_at, reason)
    SELECT m.id, m.token, m.from_state, m.state, m.state_changed_at, 'no-heartbeat'
    FROM moved AS m
    ORDER BY m.seq
    RETURNING id, node, token, from_state, to_state, changed_at, reason
),
staying AS (
    SELECT min(n.heartbeat_at) AS oldest_active
    FROM baton_nodes AS n
    WHERE n.state = 'active'
      AND n.seq <> ALL (ARRAY(SELECT s.seq FROM silent AS s))
)
SELECT c.now_ms, st.oldest_active, r.id, r.node, r.token, r.from_state, r.to_state,
       r.changed_at, r.reason
FROM clock AS c
CROSS JOIN staying AS st
LEFT JOIN recorded AS r ON TRUE
ORDER BY r.id
