-- Up to n final executions of a job, oldest first, that the retention no longer keeps: ranked
-- newest first by id, succeeded ones beyond the newest k and the others beyond the newest m,
-- and any finished before a cutoff. Live executions, the job's record with the greatest
-- scheduled instant and the record that marks its last fire (see job_last_fires.sql) are
-- always kept. Answers each one's trigger and the last instant it accounts for.
--   ? job, keep succeeded, keep others, cutoff (ms), job, job, rows to read.
SELECT id, `trigger`, GREATEST(scheduled_at, COALESCE(covers_through, scheduled_at)) AS through
FROM (
    SELECT id, `trigger`, status, finished_at, scheduled_at, covers_through,
           ROW_NUMBER() OVER (PARTITION BY status = 'succeeded' ORDER BY id DESC) AS newest
    FROM baton_executions
    WHERE job = ? AND status NOT IN ('scheduled', 'running')
) AS finished
WHERE (newest > CASE WHEN status = 'succeeded' THEN ? ELSE ? END OR finished_at < ?)
  AND id <> (
      SELECT id
      FROM baton_executions
      WHERE job = ?
      ORDER BY scheduled_at DESC, id DESC
      LIMIT 1
  )
  AND id <> COALESCE((
      SELECT id
      FROM baton_executions
      WHERE job = ? AND `trigger` = 'schedule'
      ORDER BY GREATEST(scheduled_at, COALESCE(covers_through, scheduled_at)) DESC, id DESC
      LIMIT 1
  ), 0)
ORDER BY id
LIMIT ?
