-- Records the retries in ?1, a JSON array of [job, fire_key, scheduled_at, attempt, due_at],
-- at ?2 (now), in array order; an attempt already recorded is left as it is.
INSERT INTO baton_executions (
    job, fire_key, scheduled_at, attempt, "trigger", status, due_at, created_at
)
SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]'),
       json_extract(value, '$[3]'), 'retry', 'scheduled', json_extract(value, '$[4]'), ?2
FROM json_each(?1)
WHERE true
ORDER BY key
ON CONFLICT (job, fire_key, attempt) DO NOTHING
RETURNING id, job, fire_key, scheduled_at, attempt, "trigger", status, due_at, node, token, created_at,
       started_at, heartbeat_at, finished_at, detail, covers_through, covers_count, cancel_requested
