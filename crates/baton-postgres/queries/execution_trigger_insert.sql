-- Records an execution outside the schedule, due now, or running on a node under a new token;
-- a started execution of a job whose overlap is not 'allow' becomes the job's running one when
-- it has none. Runs in the trigger's transaction, after execution_trigger_lock.sql. Workers are
-- woken on commit when the execution is left due. Answers nothing when the attempt was
-- recorded meanwhile (by a scheduler leader recording the same instant).
--   $1 job name, $2 fire key, $3 scheduled instant, $4 attempt, $5 trigger,
--   $6 node (NULL: leave it due for the workers).
WITH clock AS MATERIALIZED (
    SELECT baton_now_ms() AS now_ms
),
inserted AS (
    INSERT INTO baton_executions AS e
        (job, fire_key, scheduled_at, attempt, trigger, status, due_at, node, token, created_at,
         started_at, heartbeat_at)
    SELECT $1::TEXT, $2::TEXT, $3::BIGINT, $4::BIGINT, $5::TEXT,
           CASE WHEN $6::TEXT IS NULL THEN 'scheduled' ELSE 'running' END,
           clock.now_ms, $6::TEXT,
           CASE WHEN $6::TEXT IS NULL THEN NULL ELSE nextval('baton_fencing_tokens') END,
           clock.now_ms,
           CASE WHEN $6::TEXT IS NULL THEN NULL ELSE clock.now_ms END,
           CASE WHEN $6::TEXT IS NULL THEN NULL ELSE clock.now_ms END
    FROM clock
    ON CONFLICT (job, fire_key, attempt) DO NOTHING
    RETURNING e.id, e.job, e.fire_key, e.scheduled_at, e.attempt, e.trigger, e.status,
              e.due_at, e.node, e.token, e.created_at, e.started_at, e.heartbeat_at,
              e.finished_at, e.detail, e.covers_through, e.covers_count, e.cancel_requested
),
queued AS (
    INSERT INTO baton_execution_queue (id, job, due_at, scheduled_at, trigger)
    SELECT i.id, i.job, i.due_at, i.scheduled_at, i.trigger
    FROM inserted AS i
    WHERE i.status = 'scheduled'
),
runs AS (
    INSERT INTO baton_execution_runs (id, job)
    SELECT i.id, i.job FROM inserted AS i WHERE i.status = 'running'
),
started AS (
    UPDATE baton_jobs AS j
    SET running_execution = COALESCE(j.running_execution, i.id)
    FROM inserted AS i
    WHERE j.name = i.job AND i.status = 'running' AND j.overlap <> 'allow'
)
SELECT i.id, i.job, i.fire_key, i.scheduled_at, i.attempt, i.trigger, i.status, i.due_at,
       i.node, i.token, i.created_at, i.started_at, i.heartbeat_at, i.finished_at, i.detail,
       i.covers_through, i.covers_count, i.cancel_requested
FROM inserted AS i
LEFT JOIN LATERAL (
    SELECT pg_notify('baton_execution_due', '') WHERE i.status = 'scheduled'
) AS woken ON TRUE
