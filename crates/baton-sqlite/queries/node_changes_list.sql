-- A page of node state changes after id ?1, at most ?2 rows, oldest first.
SELECT id, node, token, from_state, to_state, at AS changed_at, reason
FROM baton_node_changes
WHERE id > ?1
ORDER BY id
LIMIT ?2
