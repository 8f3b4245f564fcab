-- Records at ?1 the moves in ?2, a JSON array of [batch, partition, key, from node, to node,
-- reason, token], numbered in that order.
INSERT INTO baton_partition_moves
    (batch, partition_id, key, from_node, to_node, reason, token, moved_at)
SELECT json_extract(item.value, '$[0]'), json_extract(item.value, '$[1]'),
       json_extract(item.value, '$[2]'), json_extract(item.value, '$[3]'),
       json_extract(item.value, '$[4]'), json_extract(item.value, '$[5]'),
       json_extract(item.value, '$[6]'), ?1
FROM json_each(?2) AS item
ORDER BY item.key
