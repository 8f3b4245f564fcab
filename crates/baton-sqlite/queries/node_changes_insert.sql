-- Records at ?1 the node state changes in ?2, a JSON array of
-- [node, token, from_state, to_state, reason], numbered in array order.
INSERT INTO baton_node_changes (node, token, from_state, to_state, at, reason)
SELECT json_extract(change.value, '$[0]'), json_extract(change.value, '$[1]'),
       json_extract(change.value, '$[2]'), json_extract(change.value, '$[3]'), ?1,
       json_extract(change.value, '$[4]')
FROM json_each(?2) AS change
ORDER BY change.key
RETURNING id, node, token, from_state, to_state, at AS changed_at, reason
