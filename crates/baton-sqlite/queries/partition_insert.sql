-- Creates at ?2 the pending partitions of batch ?1 listed in ?3, a JSON array of
-- [key, params, transferable, node], numbered in array order.
INSERT INTO baton_partitions (batch, key, params, transferable, state, node, created_at)
SELECT ?1, json_extract(spec.value, '$[0]'), json_extract(spec.value, '$[1]'),
       json_extract(spec.value, '$[2]'), 'pending', json_extract(spec.value, '$[3]'), ?2
FROM json_each(?3) AS spec
ORDER BY spec.key
