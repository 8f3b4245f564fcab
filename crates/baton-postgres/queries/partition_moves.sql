-- One page of a batch's moves, oldest first.
--   $1 batch, $2 after this id, $3 most rows.
SELECT id, batch, partition_id, key, from_node, to_node, reason, token, moved_at
FROM baton_partition_moves
WHERE batch = $1 AND id > $2
ORDER BY id
LIMIT $3
