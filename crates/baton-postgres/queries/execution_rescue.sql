-- Abandons running executions whose worker stopped heartbeating (oldest heartbeat first),
-- frees their jobs and records (and queues) the retries their policies call for, in one
-- statement and one commit. Executions another session has locked (being completed) are left
-- alone. The running executions are those of baton_execution_runs (migration 0007).
--   $1 stale after (ms), $2 most executions.
-- Answers the abandoned executions (part 'abandoned'), the retries (part 'retry'), and one row
-- (part 'oldest') whose heartbeat_at is the oldest heartbeat of the executions left running.
WITH clock AS MATERIALIZED (
    SELECT baton_now_ms() AS now_ms
),
stale AS MATERIALIZED (
    SELECT e.id
    FROM baton_executions AS e
    WHERE e.id = ANY (ARRAY(SELECT r.id FROM baton_execution_runs AS r))
      AND e.token IS NOT NULL
      AND e.finished_at IS NULL
      AND e.heartbeat_at < (SELECT c.now_ms - LEAST($1::BIGINT, c.now_ms) FROM clock AS c)
    ORDER BY e.heartbeat_at, e.id
    LIMIT $2
    FOR UPDATE OF e SKIP LOCKED
),
abandoned AS (
    UPDATE baton_executions AS e
    SET status = 'abandoned',
        finished_at = clock.now_ms,
        detail = 'worker ' || e.node || ' stopped heartbeating (last at '
                 || baton_instant_text(e.heartbeat_at) || ')'
    FROM stale AS s
    CROSS JOIN clock
    WHERE e.id = s.id
    RETURNING e.id, e.job, e.fire_key, e.scheduled_at, e.attempt, e.trigger, e.status,
              e.due_at, e.node, e.token, e.created_at, e.started_at, e.heartbeat_at,
              e.finished_at, e.detail, e.covers_through, e.covers_count, e.cancel_requested
),
ended AS (
    DELETE FROM baton_execution_runs AS r
    WHERE r.id = ANY (ARRAY(SELECT a.id FROM abandoned AS a))
),
freed AS (
    UPDATE baton_jobs AS j
    SET running_execution = NULL
    FROM abandoned AS a
    WHERE j.name = a.job
      AND j.running_execution = a.id
    RETURNING j.name
),
retries AS (
    INSERT INTO baton_executions AS e
        (job, fire_key, scheduled_at, attempt, trigger, status, due_at, created_at)
    SELECT a.job, a.fire_key, a.scheduled_at, a.attempt + 1, 'retry', 'scheduled',
           clock.now_ms + LEAST(j.retry_max_ms::NUMERIC,
                                j.retry_initial_ms * power(2::NUMERIC, a.attempt - 1))::BIGINT,
           clock.now_ms
    FROM abandoned AS a
    JOIN baton_jobs AS j ON j.name = a.job
    CROSS JOIN clock
    WHERE a.attempt < j.retry_max_attempts
    ORDER BY a.id
    ON CONFLICT (job, fire_key, attempt) DO NOTHING
    RETURNING e.id, e.job, e.fire_key, e.scheduled_at, e.attempt, e.trigger, e.status,
              e.due_at, e.node, e.token, e.created_at, e.started_at, e.heartbeat_at,
              e.finished_at, e.detail, e.covers_through, e.covers_count, e.cancel_requested
),
queued AS (
    INSERT INTO baton_execution_queue (id, job, due_at, scheduled_at, trigger)
    SELECT r.id, r.job, r.due_at, r.scheduled_at, r.trigger FROM retries AS r
),
woken AS (
    -- One wake-up for the whole statement (identical notifications of a transaction are
    -- delivered once anyway).
    SELECT count(*) AS sent
    FROM (
        -- Identical notifications of one transaction are delivered once.
        SELECT pg_notify('baton_execution_due', '')
        WHERE EXISTS (SELECT 1 FROM retries)
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
SELECT 'abandoned' AS part, e.id, e.job, e.fire_key, e.scheduled_at, e.attempt, e.trigger,
       e.status, e.due_at, e.node, e.token, e.created_at, e.started_at, e.heartbeat_at,
       e.finished_at, e.detail, e.covers_through, e.covers_count, e.cancel_requested
FROM abandoned AS e
CROSS JOIN woken
UNION ALL
SELECT 'retry' AS part, e.id, e.job, e.fire_key, e.scheduled_at, e.attempt, e.trigger,
       e.status, e.due_at, e.node, e.token, e.created_at, e.started_at, e.heartbeat_at,
       e.finished_at, e.detail, e.covers_through, e.covers_count, e.cancel_requested
FROM retries AS e
UNION ALL
SELECT 'oldest' AS part, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
       NULL, (
           SELECT min(r.heartbeat_at)
           FROM baton_executions AS r
           WHERE r.id = ANY (ARRAY(SELECT u.id FROM baton_execution_runs AS u))
             AND r.id <> ALL (ARRAY(SELECT s.id FROM stale AS s))
       ),
       NULL, NULL, NULL, NULL, NULL
