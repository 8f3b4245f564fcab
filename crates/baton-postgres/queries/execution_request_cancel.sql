-- Asks a running execution to stop, or cancels a scheduled one, in one statement. Answers the
-- execution's id when it was live. Cancelling a waiting execution of a 'buffer-one' job
-- updates the job row, so that a claim whose snapshot still shows it waiting leaves the job
-- for a later claim (see execution_claim.sql).
--   $1 execution id.
WITH changed AS (
    UPDATE baton_executions AS e
    SET cancel_requested = e.cancel_requested OR e.status = 'running',
        status = CASE WHEN e.status = 'scheduled' THEN 'cancelled' ELSE e.status END,
        detail = CASE
            WHEN e.status = 'scheduled' THEN 'cancelled before it started'
            ELSE e.detail
        END,
        finished_at = CASE WHEN e.status = 'scheduled' THEN clock.now_ms ELSE e.finished_at END
    FROM (SELECT baton_now_ms() AS now_ms) AS clock
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
