-- Stamps at ?1 the heartbeats of node ?2's partitions in ?3, a JSON array of
-- [id, token, progress], with their progress; only those still claimed by that node under that
-- token are touched and listed, with that token.
-- Progress only grows: a heartbeat that waited behind a checkpoint must not set it back.
-- The unary + keeps the state and node tests off the indexes, so each row of ?3 is found by id
-- rather than every claimed partition being matched against the whole array.
UPDATE baton_partitions
SET heartbeat_at = ?1, progress = max(progress, beat.beat_progress)
FROM (
    SELECT json_extract(value, '$[0]') AS beat_id, json_extract(value, '$[1]') AS beat_token,
           json_extract(value, '$[2]') AS beat_progress
    FROM json_each(?3)
) AS beat
WHERE baton_partitions.id = beat.beat_id
  AND baton_partitions.token = beat.beat_token
  AND +baton_partitions.state = 'claimed'
  AND +baton_partitions.node = ?2
RETURNING id, token
