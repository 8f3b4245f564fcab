-- Records fires at the given time, in array order. A fire of a paused job, or at or before its
-- job's skip_through, is recorded as skipped. The caller leaves out a fire at an instant a
-- missed run of its job covers (execution_covering.sql). INSERT IGNORE, deliberately: a fire
-- already recorded (the unique key on its identity) is left as it is, and the affected-row count
-- is the number of rows inserted (ON DUPLICATE KEY UPDATE would count a duplicate as a row under
-- CLIENT_FOUND_ROWS). Every value was validated before, so a duplicate is the only error it can
-- ignore.
--   ? now, now, JSON array of [job, fire_key, scheduled_at, due_at].
INSERT IGNORE INTO baton_executions (
    job, fire_key, scheduled_at, attempt, `trigger`, status, due_at, created_at, finished_at,
    detail
)
SELECT fire.job, fire.fire_key, fire.scheduled_at, 1, 'schedule',
       CASE WHEN fire.skip IS NULL THEN 'scheduled' ELSE 'skipped' END,
       fire.due_at, ?,
       CASE WHEN fire.skip IS NULL THEN NULL ELSE ? END,
       fire.skip
FROM (
    SELECT f.position, f.job, f.fire_key, f.scheduled_at, f.due_at,
           CASE
               WHEN j.paused THEN 'job is paused'
               WHEN f.scheduled_at <= j.skip_through THEN 'skip-next'
           END AS skip
    FROM JSON_TABLE(?, '$[*]' COLUMNS (
        position     FOR ORDINALITY,
        job          VARCHAR(200) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[0]',
        fire_key     VARCHAR(200) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[1]',
        scheduled_at BIGINT PATH '$[2]',
        due_at       BIGINT PATH '$[3]'
    )) AS f
    JOIN baton_jobs AS j ON j.name = f.job
) AS fire
ORDER BY fire.position
