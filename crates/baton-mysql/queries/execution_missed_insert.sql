-- Records missed runs at the given time, each as one final 'missed' record, in array order.
-- The runs were chosen by execution_missed_uncovered.sql under the jobs' exclusive locks. It
-- reads no table it writes, so no temporary table holds the rows. INSERT IGNORE as in
-- execution_fires_insert.sql.
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
ORDER BY run.position
