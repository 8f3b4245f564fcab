-- Records moves of partitions, numbered in the order listed.
-- /*rows*/ is replaced by one "(?, ?, ?, ?, ?, ?, ?, ?)" per move.
--   ? batch, partition, key, from node, to node (NULL: any node), reason, token (NULL for a
--   failover), now (ms), per move.
INSERT INTO baton_partition_moves
    (batch, partition_id, partition_key, from_node, to_node, reason, token, moved_at)
VALUES /*rows*/
