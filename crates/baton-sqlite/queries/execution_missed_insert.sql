-- Records the missed runs in ?1, a JSON array of [job, fire_key, first, last, count, reason],
-- at ?2 (now), each as one final 'missed' record. A run is left out when a schedule record of
-- its job already accounts for one of its instants: a fire at one of them, or a missed run
-- reaching into it (the run itself, recorded before, among them).
INSERT INTO baton_executions (
    job, fire_key, scheduled_at, attempt, "trigger", status, due_at, created_at, finished_at,
    detail, covers_through, covers_count
)
SELECT run.job, run.fire_key, run.first, 1, 'schedule', 'missed', run.first, ?2, ?2,
       run.reason, run.last, run.count
FROM (
    SELECT key AS position,
           json_extract(value, '$[0]') AS job,
           json_extract(value, '$[1]') AS fire_key,
           json_extract(value, '$[2]') AS first,
           json_extract(value, '$[3]') AS last,
           json_extract(value, '$[4]') AS count,
           json_extract(value, '$[5]') AS reason
    FROM json_each(?1)
) AS run
WHERE NOT EXISTS (
    SELECT 1
    FROM baton_executions AS r
    WHERE r.job = run.job
      AND r."trigger" = 'schedule'
      AND r.scheduled_at BETWEEN run.first AND run.last
)
  AND NOT EXISTS (
    SELECT 1
    FROM baton_executions AS r
    WHERE r.job = run.job
      AND r.covers_through IS NOT NULL
      AND r.scheduled_at < run.first
      AND r.covers_through >= run.first
)
ORDER BY run.position
ON CONFLICT (job, fire_key, attempt) DO NOTHING
