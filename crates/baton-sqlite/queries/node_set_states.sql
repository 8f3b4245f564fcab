-- Moves at ?1 the nodes in ?2, a JSON array of [seq, state], to their new state.
UPDATE baton_nodes
SET state = moved.moved_state, state_changed_at = ?1
FROM (
    SELECT json_extract(value, '$[0]') AS moved_seq, json_extract(value, '$[1]') AS moved_state
    FROM json_each(?2)
) AS moved
WHERE baton_nodes.seq = moved.moved_seq
