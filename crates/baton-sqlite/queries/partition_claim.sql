-- Claims at ?1 for node ?2 the pending partitions in ?3, a JSON array of [id, token]: each is
-- stamped, counts one more attempt and keeps its checkpoint and progress.
-- The unary + keeps the state test off the indexes, so each row of ?3 is found by id rather
-- than every pending partition being matched against the whole array.
UPDATE baton_partitions
SET state = 'claimed', node = ?2, token = claim.claim_token, attempts = attempts + 1,
    claimed_at = ?1, heartbeat_at = ?1
FROM (
    SELECT json_extract(value, '$[0]') AS claim_id, json_extract(value, '$[1]') AS claim_token
    FROM json_each(?3)
) AS claim
WHERE baton_partitions.id = claim.claim_id AND +baton_partitions.state = 'pending'
RETURNING id, batch, key, params, transferable, state, node, token, checkpoint, result, attempts,
       progress, created_at, claimed_at, heartbeat_at, finished_at, error
