-- Finishes running executions (compare-and-set on each one's token), frees their jobs for the
-- next claim, and records (and queues) the retries their jobs' policies call for, in one
-- statement and one commit. Workers are woken when a retry was recorded or an execution of a freed job waits.
--   $1 execution ids, $2 tokens, $3 final statuses, $4 details, $5 outputs (pairwise arrays;
--   an output is kept apart, in baton_execution_outputs).
-- Answers the finished executions (part 'execution') and the retries (part 'retry'); an
-- execution not answered no longer runs under its token.
WITH clock AS MATERIALIZED (
    SELECT baton_now_ms() AS now_ms
),
locked AS MATERIALIZED (
    -- The running executions among them with their outcomes, locked in id order as heartbeats
    -- lock them, so that a batched completion and a heartbeat of the same worker wait for each
    -- other instead of deadlocking.
    SELECT e.id, f.status, f.detail
    FROM unnest($1::BIGINT[], $2::BIGINT[], $3::TEXT[], $4::TEXT[]) AS f (id, token, status, detail)
    JOIN baton_executions AS e ON e.id = f.id
    WHERE e.token = f.token
      AND e.finished_at IS NULL
    ORDER BY e.id
    FOR NO KEY UPDATE OF e
),
done AS (
    -- Joined on the id alone, so that every plan finds each row by its primary key.
    UPDATE baton_executions AS e
    SET status = l.status,
        detail = l.detail,
        finished_at = clock.now_ms
    FROM clock, locked AS l
    WHERE e.id = l.id
    RETURNING e.id, e.job, e.fire_key, e.scheduled_at, e.attempt, e.trigger, e.status,
              e.due_at, e.node, e.token, e.created_at, e.started_at, e.heartbeat_at,
              e.finished_at, e.detail, e.covers_through, e.covers_count, e.cancel_requested
),
kept AS (
    INSERT INTO baton_execution_outputs (execution_id, output)
    SELECT d.id, reported.output
    FROM done AS d
    JOIN unnest($1::BIGINT[], $5::TEXT[]) AS reported (id, output) ON reported.id = d.id
    WHERE reported.output IS NOT NULL
),
ended AS (
    DELETE FROM baton_execution_runs AS r
    WHERE r.id = ANY (ARRAY(SELECT d.id FROM done AS d))
),
freed AS (
    UPDATE baton_jobs AS j
    SET running_execution = NULL
    FROM done AS d
    WHERE j.name = d.job
      AND j.running_execution = d.id
    RETURNING j.name
),
retry AS (
    INSERT INTO baton_executions AS e
        (job, fire_key, scheduled_at, attempt, trigger, status, due_at, created_at)
    SELECT d.job, d.fire_key, d.scheduled_at, d.attempt + 1, 'retry', 'scheduled',
           clock.now_ms + LEAST(j.retry_max_ms::NUMERIC,
                                j.retry_initial_ms * power(2::NUMERIC, d.attempt - 1))::BIGINT,
           clock.now_ms
    FROM done AS d
    JOIN baton_jobs AS j ON j.name = d.job
    CROSS JOIN clock
    WHERE d.status IN ('failed', 'timed_out', 'abandoned')
      AND d.attempt < j.retry_max_attempts
    ORDER BY d.id
    ON CONFLICT (job, fire_key, attempt) DO NOTHING
    RETURNING e.id, e.job, e.fire_key, e.scheduled_at, e.attempt, e.trigger, e.status,
              e.due_at, e.node, e.token, e.created_at, e.started_at, e.heartbeat_at,
              e.finished_at, e.detail, e.covers_through, e.covers_count, e.cancel_requested
),
queued AS (
    INSERT INTO baton_execution_queue (id, job, due_at, scheduled_at, trigger)
    SELECT r.id, r.job, r.due_at, r.scheduled_at, r.trigger FROM retry AS r
),
woken AS (
    -- One wake-up for the whole statement (identical notifications of a transaction are
    -- delivered once anyway).
    SELECT count(*) AS sent
    FROM (
        SELECT pg_notify('baton_execution_due', '')
        WHERE EXISTS (SELECT 1 FROM retry)
           OR EXISTS (
               SELECT 1
               FROM freed AS f
               -- Ordered, so that every plan walks the queue's (job, due_at) key: unordered,
               -- a generic plan may scan the whole queue for a job with nothing due.
               WHERE (SELECT w.id
                      FROM baton_execution_queue AS w
                      WHERE w.job = f.name
                        AND w.due_at <= (SELECT c.now_ms FROM clock AS c)
                      ORDER BY w.due_at
                      LIMIT 1) IS NOT NULL
           )
    ) AS notified
)
SELECT 'execution' AS part, e.id, e.job, e.fire_key, e.scheduled_at, e.attempt, e.trigger,
       e.status, e.due_at, e.node, e.token, e.created_at, e.started_at, e.heartbeat_at,
       e.finished_at, e.detail, e.covers_through, e.covers_count, e.cancel_requested
FROM done AS e
CROSS JOIN woken
UNION ALL
SELECT 'retry' AS part, e.id, e.job, e.fire_key, e.scheduled_at, e.attempt, e.trigger,
       e.status, e.due_at, e.node, e.token, e.created_at, e.started_at, e.heartbeat_at,
       e.finished_at, e.detail, e.covers_through, e.covers_count, e.cancel_requested
FROM retry AS e
