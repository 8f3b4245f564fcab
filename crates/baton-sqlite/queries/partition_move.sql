-- Assigns to node ?1 the pending partitions in ?2, a JSON array of [id, token], each under its
-- new token. The unary + keeps the state test off the indexes, so each row of ?2 is found by id.
UPDATE baton_partitions
SET node = ?1, token = moved.moved_token
FROM (
    SELECT json_extract(value, '$[0]') AS moved_id, json_extract(value, '$[1]') AS moved_token
    FROM json_each(?2)
) AS moved
WHERE baton_partitions.id = moved.moved_id AND +baton_partitions.state = 'pending'
RETURNING id, batch, key, params, transferable, state, node, token, checkpoint, result, attempts,
       progress, created_at, claimed_at, heartbeat_at, finished_at, error
