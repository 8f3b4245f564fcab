-- A page of every node's state changes, oldest first.
--   ? last id seen (0 for the first page), rows (page size + 1).
SELECT id, node, token, from_state, to_state, changed_at, reason
FROM baton_node_changes
WHERE id > ?
ORDER BY id
LIMIT ?
