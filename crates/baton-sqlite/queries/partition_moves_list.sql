-- A page of the moves of batch ?1 after id ?2, at most ?3 rows, oldest first.
SELECT id, batch, partition_id, key, from_node, to_node, reason, token, moved_at
FROM baton_partition_moves
WHERE batch = ?1 AND id > ?2
ORDER BY id
LIMIT ?3
