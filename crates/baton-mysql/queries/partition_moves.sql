-- One page of a batch's moves, oldest first.
--   ? batch, after this id, most rows.
SELECT id, batch, partition_id, partition_key AS `key`, from_node, to_node, reason, token,
       moved_at
FROM baton_partition_moves
WHERE batch = ? AND id > ?
ORDER BY id
LIMIT ?
