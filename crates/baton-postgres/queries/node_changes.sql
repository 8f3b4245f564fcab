-- One page of node state changes, oldest first (keyset pagination), optionally of one node.
--   $1 last id already seen (0 for the first page), $2 node id (NULL: any), $3 rows to read
--   (page size + 1).
SELECT id, node, token, from_state, to_state, changed_at, reason
FROM baton_node_changes
WHERE id > $1
  AND ($2::TEXT IS NULL OR node = $2::TEXT)
ORDER BY id
LIMIT $3
