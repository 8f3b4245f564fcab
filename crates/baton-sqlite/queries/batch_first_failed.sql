-- The key and error of the first ?2 failed partitions of batch ?1, by id.
SELECT key, error
FROM baton_partitions
WHERE batch = ?1 AND state = 'failed'
ORDER BY id
LIMIT ?2
