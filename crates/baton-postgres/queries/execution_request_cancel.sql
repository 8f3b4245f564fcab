-- Asks a running execution to stop, or cancels a scheduled one, in one statement. Answers the
-- execution's id when it was live. Cancelling a waiting execution of a 'buffer-one' job
-- updates the job row, so that a claim whose snapshot still shows it waiting leaves the job
-- for a later claim (see execution_claim.sql).
--   $1 execution id.
--
-- The queue row is deleted first, as a claim locks it before the execution: when a claim holds
-- it, the deletion waits, and finds it gone when that claim started or settled the execution,
-- whose record this statement then reads in its latest version.
WITH clock AS MATERIALIZED (
    SELECT baton_now_ms() AS now_ms
),
dequeued AS MATERIALIZED (
    DELETE FROM baton_execution_queue AS q
    USING baton_executions AS e
    WHERE e.id = $1
      AND q.job = e.job
      AND q.due_at = e.due_at
      AND q.id = e.id
    RETURNING q.id
),
changed AS (
    UPDATE baton_executions AS e
    SET cancel_requested = e.cancel_requested OR e.status = 'running',
        status = CASE WHEN d.id IS NOT NULL THEN 'cancelled' ELSE e.status END,
        detail = CASE WHEN d.id IS NOT NULL THEN 'cancelled before it started' ELSE e.detail END,
        finished_at = CASE WHEN d.id IS NOT NULL THEN clock.now_ms ELSE e.finished_at END
    FROM clock
    LEFT JOIN dequeued AS d ON TRUE
    WHERE e.id = $1 AND e.finished_at IS NULL
    RETURNING e.id, e.job, e.status
),
touched AS (
    UPDATE baton_jobs AS j
    SET running_execution = j.running_execution
    FROM changed AS c
    WHERE j.name = c.job AND c.status = 'cancelled' AND j.overlap = 'buffer-one'
)
SELECT c.id FROM changed AS c
