-- A page of one batch's partitions by id, after a cursor, optionally in one state.
--   ? batch id, last id seen (0 for the first page), state (NULL: any), state,
--   rows (page size + 1).
SELECT id, batch, partition_key AS `key`, params, transferable, state, node, token, checkpoint, result,
       attempts, progress, created_at, claimed_at, heartbeat_at, finished_at, error
FROM baton_partitions
WHERE batch = ? AND id > ? AND (? IS NULL OR state = ?)
ORDER BY id
LIMIT ?
