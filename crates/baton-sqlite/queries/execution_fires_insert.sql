-- Records the fires in ?1, a JSON array of [job, fire_key, scheduled_at, due_at], at ?2 (now),
-- in array order. A fire of a paused job, or at or before its job's skip_through, is recorded
-- as skipped. A fire already recorded, or at an instant a missed run of its job covers, is
-- left as it is; RETURNING lists only the new rows.
INSERT INTO baton_executions (
    job, fire_key, scheduled_at, attempt, "trigger", status, due_at, created_at, finished_at,
    detail
)
SELECT fire.job, fire.fire_key, fire.scheduled_at, 1, 'schedule',
       CASE WHEN fire.skip IS NULL THEN 'scheduled' ELSE 'skipped' END,
       fire.due_at, ?2,
       CASE WHEN fire.skip IS NULL THEN NULL ELSE ?2 END,
       fire.skip
FROM (
    SELECT f.key AS position,
           json_extract(f.value, '$[0]') AS job,
           json_extract(f.value, '$[1]') AS fire_key,
           json_extract(f.value, '$[2]') AS scheduled_at,
           json_extract(f.value, '$[3]') AS due_at,
           CASE
               WHEN j.paused = 1 THEN 'job is paused'
               WHEN json_extract(f.value, '$[2]') <= j.skip_through THEN 'skip-next'
           END AS skip
    FROM json_each(?1) AS f
    JOIN baton_jobs AS j ON j.name = json_extract(f.value, '$[0]')
) AS fire
WHERE NOT EXISTS (
    SELECT 1
    FROM baton_executions AS r
    WHERE r.job = fire.job
      AND r.covers_through IS NOT NULL
      AND r.scheduled_at <= fire.scheduled_at
      AND r.covers_through >= fire.scheduled_at
)
ORDER BY fire.position
ON CONFLICT (job, fire_key, attempt) DO NOTHING
RETURNING status
