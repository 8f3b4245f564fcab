-- Deletes up to ?5 final executions of job ?1, oldest first, that the retention no longer
-- keeps: ranked newest first by id, succeeded ones beyond the newest ?2 and the others beyond
-- the newest ?3, and any finished before ?4. Live executions, the job's record with the
-- greatest scheduled instant and the record that marks its last fire (see
-- job_last_fires.sql) are always kept. Answers, per deleted record of the schedule (a fire,
-- its retry or an external trigger of it), the last instant it accounted for.
DELETE FROM baton_executions
WHERE id IN (
    SELECT id
    FROM (
        SELECT id, status, finished_at,
               ROW_NUMBER() OVER (PARTITION BY status = 'succeeded' ORDER BY id DESC) AS newest
        FROM baton_executions
        WHERE job = ?1 AND status NOT IN ('scheduled', 'running')
    )
    WHERE (newest > CASE WHEN status = 'succeeded' THEN ?2 ELSE ?3 END OR finished_at < ?4)
      AND id NOT IN (
          SELECT id
          FROM baton_executions
          WHERE job = ?1
          ORDER BY scheduled_at DESC, id DESC
          LIMIT 1
      )
      AND id NOT IN (
          SELECT id
          FROM baton_executions
          WHERE job = ?1 AND "trigger" = 'schedule'
          ORDER BY MAX(scheduled_at, COALESCE(covers_through, scheduled_at)) DESC, id DESC
          LIMIT 1
      )
    ORDER BY id
    LIMIT ?5
)
RETURNING CASE WHEN "trigger" <> 'manual'
               THEN MAX(scheduled_at, COALESCE(covers_through, scheduled_at)) END AS through
