-- A page of the partitions of batch ?1 after id ?2, at most ?3 rows, by id.
SELECT id, batch, key, params, transferable, state, node, token, checkpoint, result, attempts,
       progress, created_at, claimed_at, heartbeat_at, finished_at, error
FROM baton_partitions
WHERE batch = ?1 AND id > ?2
ORDER BY id
LIMIT ?3
