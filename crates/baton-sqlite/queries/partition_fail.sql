-- Fails at ?1 partition ?2 with error ?4, if it is claimed under token ?3.
UPDATE baton_partitions
SET state = 'failed', error = ?4, finished_at = ?1
WHERE id = ?2 AND token = ?3 AND state = 'claimed'
RETURNING id, batch, key, params, transferable, state, node, token, checkpoint, result, attempts,
       progress, created_at, claimed_at, heartbeat_at, finished_at, error
