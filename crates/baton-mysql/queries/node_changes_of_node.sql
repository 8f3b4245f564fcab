-- A page of one node's state changes, oldest first.
--   ? node id, last id seen (0 for the first page), rows (page size + 1).
SELECT id, node, token, from_state, to_state, changed_at, reason
FROM baton_node_changes
WHERE node = ? AND id > ?
ORDER BY id
LIMIT ?
