-- Which of the given missed runs no schedule record of their job accounts for yet: no fire at
-- one of their instants, and no missed run reaching into them. Answers their positions in the
-- array, in order. Read while the runs' jobs are locked exclusively (job_lock.sql), so nothing
-- of those jobs is recorded between this read and the insert of the runs it answers
-- (execution_missed_insert.sql). A read of its own rather than a condition of that insert: an
-- insert that reads its own table materializes the rows first, and with the runs' TEXT reason
-- that is an on-disk temporary table for every batch of missed runs.
--   ? JSON array of [job, fire_key, first, last, count, reason].
SELECT run.position
FROM JSON_TABLE(?, '$[*]' COLUMNS (
    position FOR ORDINALITY,
    job      VARCHAR(200) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[0]',
    first    BIGINT PATH '$[2]',
    last     BIGINT PATH '$[3]'
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
    FROM baton_executions AS r FORCE INDEX (baton_executions_job_covers)
    WHERE r.job = run.job
      AND r.covers_through IS NOT NULL
      AND r.scheduled_at < run.first
      AND r.covers_through >= run.first
)
ORDER BY run.position
