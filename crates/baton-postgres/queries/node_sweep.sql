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
-- Answers the changes recorded, in seq order of their nodes.
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
)
INSERT INTO baton_node_changes (node, token, from_state, to_state, changed_at, reason)
SELECT m.id, m.token, m.from_state, m.state, m.state_changed_at, 'no-heartbeat'
FROM moved AS m
ORDER BY m.seq
RETURNING id, node, token, from_state, to_state, changed_at, reason
