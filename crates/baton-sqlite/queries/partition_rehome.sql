-- Applies at ?1 the fates in ?2, a JSON array of [id, state, node, error], to pending and
-- claimed partitions: back to 'pending' on node (any node when NULL), keeping token, checkpoint,
-- progress and attempts; or 'failed' with error, finished at ?1.
-- The unary + keeps the state test off the indexes, so each row of ?2 is found by id rather
-- than every unfinished partition being matched against the whole array.
UPDATE baton_partitions
SET state = fate.fate_state, node = fate.fate_node, error = fate.fate_error,
    finished_at = CASE fate.fate_state WHEN 'failed' THEN ?1 END
FROM (
    SELECT json_extract(value, '$[0]') AS fate_id, json_extract(value, '$[1]') AS fate_state,
           json_extract(value, '$[2]') AS fate_node, json_extract(value, '$[3]') AS fate_error
    FROM json_each(?2)
) AS fate
WHERE baton_partitions.id = fate.fate_id AND +baton_partitions.state IN ('pending', 'claimed')
RETURNING id, batch, key, params, transferable, state, node, token, checkpoint, result, attempts,
       progress, created_at, claimed_at, heartbeat_at, finished_at, error
