-- Replaces at ?1 the checkpoint of partition ?2 with ?4 and its progress with ?5, if it is
-- claimed under token ?3.
UPDATE baton_partitions
SET checkpoint = ?4, progress = ?5, heartbeat_at = ?1
WHERE id = ?2 AND token = ?3 AND state = 'claimed'
RETURNING id, batch, key, params, transferable, state, node, token, checkpoint, result, attempts,
       progress, created_at, claimed_at, heartbeat_at, finished_at, error
