-- Records the missed runs in ?1, a JSON array of [job, fire_key, first, last, count, reason],
-- at ?2 (now), each as one final 'missed' record. A run already recorded is left as it is.
INSERT INTO baton_executions (
    job, fire_key, scheduled_at, attempt, "trigger", status, due_at, created_at, finished_at,
    detail, covers_through, covers_count
)
SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]'),
       1, 'schedule', 'missed', json_extract(value, '$[2]'), ?2, ?2,
       json_extract(value, '$[5]'), json_extract(value, '$[3]'), json_extract(value, '$[4]')
FROM json_each(?1)
WHERE true
ORDER BY key
ON CONFLICT (job, fire_key, attempt) DO NOTHING
