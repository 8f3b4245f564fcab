-- Replaces at ?1 the checkpoint of partition ?2 with ?4 and its progress with ?5, if it is
-- claimed under token ?3; run in the caller's transaction, so it commits or rolls back with the
-- caller's own writes. Answers the partition's id; no row when the claim is not current.
UPDATE baton_partitions
SET checkpoint = ?4, progress = ?5, heartbeat_at = ?1
WHERE id = ?2 AND token = ?3 AND state = 'claimed'
RETURNING id
