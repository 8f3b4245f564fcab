-- Records missed runs at the given time, each as one final 'missed' record, in array order.
-- A run is left out when a schedule record of its job already accounts for one of its
-- instants: a fire at one of them, or a missed run reaching into it (the run itself, recorded
-- before, among them). INSERT IGNORE as in execution_fires_insert.sql.
--   ? now, now, JSON array of [job, fire_key, first, last, count, reason].
INSERT IGNORE INTO baton_executions (
    job, fire_key, scheduled_at, attempt, `trigger`, status, due_at, created_at, finished_at,
    detail, covers_through, covers_count
)
SELECT run.job, run.fire_key, run.first, 1, 'schedule', 'missed', run.first, ?, ?,
       run.reason, run.last, run.count
FROM JSON_TABLE(?, '$[*]' COLUMNS (
    position FOR ORDINALITY,
    job      VARCHAR(200) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[0]',
    fire_key VARCHAR(200) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[1]',
    first    BIGINT PATH '$[2]',
    last     BIGINT PATH '$[3]',
    count    BIGINT PATH '$[4]',
    reason   TEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[5]'
)) AS run
WHERE NOT EXISTS (
    SELECT 1
    FROM baton_executions AS r
    WHERE r.job = run.job
      AND r.`trigger` = 'schedule'
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
