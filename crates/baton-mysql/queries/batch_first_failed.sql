-- The key and error of a batch's first failed partitions, by id.
--   ? batch id, how many.
SELECT partition_key, error
FROM baton_partitions
WHERE batch = ? AND state = 'failed'
ORDER BY id
LIMIT ?
