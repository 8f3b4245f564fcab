-- Overlap 'forbid' skips only a fire that came due while the job's running execution ran.
--
-- Until now a claim skipped every fire of a 'forbid' job decided while an execution of the job
-- ran, including the one the claim had started itself a moment before. Fires owed after the
-- scheduler was down (a failover) are all due when the new leader records them and are claimed
-- together: the first started, and the others were recorded as skipped, "still running" naming
-- an execution that had not run yet when they came due and that finished milliseconds later.
-- A fire is now skipped only when the running execution started before the fire's due instant
-- (core's rules::claim_decision); a fire that came due before it started waits for it to end,
-- and the next claim decides it again (a completion that frees the job wakes the workers). The
-- running execution's start is read from the snapshot: one started since (by a claim that
-- committed after it) shows none and counts as started now, after every due candidate.
--
-- Such waiting fires are left out of the candidates, as those of 'buffer-one' and 'replace'
-- jobs that would only wait again are, so that a backlog of them does not fill the examined
-- window and starve other jobs.
--
-- The rest of the function is that of migration 0009, whose comment describes it.
CREATE OR REPLACE FUNCTION baton_claim_executions(TEXT, BIGINT, TEXT[], BIGINT, BIGINT)
RETURNS TABLE (
    now_ms BIGINT, next_due_ms BIGINT,
    id BIGINT, job TEXT, fire_key TEXT, scheduled_at BIGINT, attempt BIGINT, trigger TEXT,
    status TEXT, due_at BIGINT, node TEXT, token BIGINT, created_at BIGINT, started_at BIGINT,
    heartbeat_at BIGINT, finished_at BIGINT, detail TEXT, covers_through BIGINT,
    covers_count BIGINT, cancel_requested BOOLEAN
)
LANGUAGE plpgsql VOLATILE
SET enable_sort = off
SET enable_bitmapscan = off
SET enable_seqscan = off
SET jit = off
AS $claim$
#variable_conflict use_column
BEGIN
    RETURN QUERY
        WITH params AS MATERIALIZED (
            SELECT $1::TEXT AS node, $2::BIGINT AS examined, $3::TEXT[] AS jobs, $4::BIGINT AS startable,
                   $5::BIGINT AS ahead_ms
        ),
        clock AS MATERIALIZED (
            SELECT baton_now_ms() AS now_ms
        ),
        candidates AS MATERIALIZED (
            -- Waiting executions in due order, leaving out those that would only wait again: the
            -- waiting fire of a 'buffer-one' job, the fires of a 'replace' job whose running
            -- execution was already asked to stop, and the fires of a 'forbid' job that came due
            -- before its running execution started (per the snapshot; the decisions below do not
            -- rely on this). The job is read by a subquery rather than joined, so that nothing
            -- above the scan reorders its rows: with the inner LIMIT (no claim examines more than
            -- 1000), the cheapest plan walks the due index in order whatever the statistics say
            -- about the queue, and the outer LIMIT stops the walk, and the locking, after $2 rows.
            -- The queue row's ctid is kept to delete it: a locked row cannot move.
            SELECT d.row_id, d.id, d.job, d.due_at, d.scheduled_at, d.trigger
            FROM (
                SELECT q.ctid AS row_id, q.id, q.job, q.due_at, q.scheduled_at, q.trigger
                FROM baton_execution_queue AS q
                WHERE q.due_at <= baton_now_ms() + (SELECT p.ahead_ms FROM params AS p)
                  AND (cardinality((SELECT p.jobs FROM params AS p)) = 0
                       OR q.job = ANY ((SELECT p.jobs FROM params AS p)::TEXT[]))
                  AND NOT COALESCE((
                      SELECT j.running_execution IS NOT NULL
                             AND NOT j.paused
                             AND NOT (q.trigger = 'schedule' AND q.scheduled_at <= j.skip_through) IS TRUE
                             AND NOT ((SELECT c.now_ms FROM clock AS c) - q.due_at
                                      > j.starting_deadline_ms) IS TRUE
                             AND (
                                 (j.overlap = 'replace' AND (
                                     SELECT r.cancel_requested FROM baton_executions AS r
                                     WHERE r.id = j.running_execution
                                 ))
                                 OR (j.overlap = 'buffer-one'
                                     AND q.due_at <= (SELECT c.now_ms FROM clock AS c)
                                     AND NOT EXISTS (
                                         SELECT 1 FROM baton_execution_queue AS w
                                         WHERE w.job = q.job
                                           AND w.due_at <= (SELECT c.now_ms FROM clock AS c)
                                           AND w.id < q.id
                                     ))
                                 OR (j.overlap = 'forbid'
                                     AND q.due_at <= (SELECT c.now_ms FROM clock AS c)
                                     AND (
                                         SELECT r.started_at FROM baton_executions AS r
                                         WHERE r.id = j.running_execution
                                     ) >= q.due_at)
                             )
                      FROM baton_jobs AS j
                      WHERE j.name = q.job
                  ), FALSE)
                ORDER BY q.due_at, q.id
                LIMIT 1000
                FOR UPDATE OF q SKIP LOCKED
            ) AS d
            LIMIT (SELECT p.examined FROM params AS p)
        ),
        seen AS MATERIALIZED (
            -- The candidates' jobs as of this statement's snapshot.
            SELECT j.name, j.overlap, j.paused, j.skip_through, j.starting_deadline_ms,
                   j.xmin::TEXT AS version
            FROM baton_jobs AS j
            WHERE j.name = ANY (ARRAY(SELECT c.job FROM candidates AS c))
        ),
        locked AS MATERIALIZED (
            -- Their latest versions, locked, for the jobs whose overlap matters.
            SELECT j.name, j.overlap, j.paused, j.skip_through, j.starting_deadline_ms,
                   j.running_execution, j.xmin::TEXT AS version
            FROM baton_jobs AS j
            WHERE j.name = ANY (ARRAY(SELECT s.name FROM seen AS s WHERE s.overlap <> 'allow'))
              AND j.overlap <> 'allow'
            FOR NO KEY UPDATE OF j SKIP LOCKED
        ),
        jobs AS (
            SELECT l.name, l.overlap, l.paused, l.skip_through, l.starting_deadline_ms,
                   l.running_execution, l.version <> s.version AS row_changed
            FROM locked AS l
            JOIN seen AS s ON s.name = l.name
            UNION ALL
            SELECT s.name, s.overlap, s.paused, s.skip_through, s.starting_deadline_ms, NULL::BIGINT,
                   FALSE
            FROM seen AS s
            WHERE s.overlap = 'allow'
        ),
        judged AS MATERIALIZED (
            -- The rules that need only the job: registered, paused, skip-next, starting deadline.
            -- Candidates of a job another claimer holds, or of a 'buffer-one' job whose row changed
            -- since the snapshot, are left out.
            SELECT c.row_id, c.id, c.job, c.due_at, c.due_at > clock.now_ms AS early, j.overlap,
                   j.running_execution, j.row_changed,
                   CASE
                       WHEN c.due_at > clock.now_ms THEN NULL
                       WHEN s.name IS NULL OR j.paused THEN 'skipped'
                       WHEN c.trigger = 'schedule' AND c.scheduled_at <= j.skip_through THEN 'skipped'
                       WHEN clock.now_ms - c.due_at > j.starting_deadline_ms THEN 'missed'
                   END AS settle_status,
                   CASE
                       WHEN s.name IS NULL THEN 'job is not registered'
                       WHEN j.paused THEN 'job is paused'
                       WHEN c.trigger = 'schedule' AND c.scheduled_at <= j.skip_through THEN 'skip-next'
                       WHEN clock.now_ms - c.due_at > j.starting_deadline_ms THEN
                           'starting deadline ' || baton_seconds_text(j.starting_deadline_ms)
                           || ' passed: due ' || baton_seconds_text(clock.now_ms - c.due_at) || ' ago'
                   END AS detail
            FROM candidates AS c
            CROSS JOIN clock
            LEFT JOIN seen AS s ON s.name = c.job
            LEFT JOIN jobs AS j ON j.name = c.job
            WHERE (s.name IS NULL AND c.due_at <= clock.now_ms)
               OR (j.name IS NOT NULL
                   AND NOT (j.overlap = 'buffer-one' AND j.row_changed)
                   AND NOT (c.due_at > clock.now_ms
                            AND (j.paused OR (c.trigger = 'schedule' AND c.scheduled_at <= j.skip_through)
                                 IS TRUE)))
        ),
        eligible AS MATERIALIZED (
            -- The rest, in claim order per job. running_id is the job's running execution: the one on
            -- the locked row, else any the snapshot shows (started by a trigger, or while the job's
            -- overlap was 'allow'), unless the job row changed since the snapshot (an execution that
            -- the snapshot shows running may have been completed meanwhile).
            SELECT g.row_id, g.id, g.job, g.due_at, g.early, g.overlap,
                   row_number() OVER by_job AS position,
                   first_value(g.id) OVER by_job AS first_id,
                   CASE WHEN g.overlap <> 'allow' THEN COALESCE(g.running_execution, (
                       SELECT min(r.id)
                       FROM baton_execution_runs AS r
                       WHERE r.job = g.job AND NOT g.row_changed
                   )) END AS running_id
            FROM judged AS g
            WHERE g.settle_status IS NULL
            WINDOW by_job AS (PARTITION BY g.job ORDER BY g.due_at, g.id)
        ),
        running AS MATERIALIZED (
            -- When each running execution the rules decide against started. One started after
            -- this statement's snapshot (by a claim that committed since) shows no start here:
            -- it started after every due candidate came due.
            SELECT r.id, r.started_at
            FROM baton_executions AS r
            WHERE r.id = ANY (ARRAY(
                SELECT e.running_id FROM eligible AS e WHERE e.running_id IS NOT NULL
            ))
        ),
        buffered AS MATERIALIZED (
            -- For 'buffer-one': the job's lowest-id due execution still waiting once this claim has
            -- started the first one (when none ran) and settled the late ones. Materialized, so that
            -- it is computed once per job rather than once per candidate joined to it.
            SELECT b.job, (
                SELECT min(w.id)
                FROM baton_execution_queue AS w
                WHERE w.job = b.job
                  AND w.due_at <= clock.now_ms
                  AND w.id <> b.started_id
                  AND w.id NOT IN (SELECT g.id FROM judged AS g WHERE g.settle_status IS NOT NULL)
            ) AS first_waiting
            FROM (
                SELECT DISTINCT e.job,
                       CASE WHEN e.running_id IS NULL THEN e.first_id ELSE 0 END AS started_id
                FROM eligible AS e
                WHERE e.overlap = 'buffer-one'
            ) AS b
            CROSS JOIN clock
        ),
        verdicts AS (
            -- Every judged candidate with its new status (NULL: it waits).
            SELECT g.row_id, g.id, g.job, g.due_at, g.early, g.overlap, g.settle_status AS status,
                   g.detail,
                   NULL::BIGINT AS running_id
            FROM judged AS g
            WHERE g.settle_status IS NOT NULL
            UNION ALL
            SELECT e.row_id, e.id, e.job, e.due_at, e.early, e.overlap,
                   CASE
                       WHEN e.overlap = 'allow' OR (e.running_id IS NULL AND e.position = 1)
                           THEN 'running'
                       WHEN e.early THEN NULL
                       WHEN e.overlap = 'forbid' AND e.running_id IS NOT NULL
                            AND COALESCE(r.started_at, clock.now_ms) < e.due_at THEN 'skipped'
                       WHEN e.overlap = 'buffer-one' AND e.id <> b.first_waiting THEN 'skipped'
                   END,
                   CASE
                       WHEN e.overlap = 'allow' OR (e.running_id IS NULL AND e.position = 1) THEN NULL
                       WHEN e.early THEN NULL
                       WHEN e.overlap = 'forbid' AND e.running_id IS NOT NULL
                            AND COALESCE(r.started_at, clock.now_ms) < e.due_at THEN
                           'overlap=forbid: execution ' || e.running_id || ' still running'
                       WHEN e.overlap = 'buffer-one' AND e.id <> b.first_waiting THEN
                           'overlap=buffer-one: execution ' || b.first_waiting || ' already waiting'
                   END,
                   e.running_id
            FROM eligible AS e
            CROSS JOIN clock
            LEFT JOIN running AS r ON r.id = e.running_id
            LEFT JOIN buffered AS b ON b.job = e.job
        ),
        within AS MATERIALIZED (
            -- The verdicts up to the last start the claim may make.
            SELECT v.*
            FROM (
                SELECT v.*,
                       count(*) FILTER (WHERE v.status = 'running') OVER (
                           ORDER BY v.due_at, v.id ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
                       ) AS started_before
                FROM verdicts AS v
            ) AS v
            WHERE v.started_before < (SELECT p.startable FROM params AS p)
        ),
        actions AS MATERIALIZED (
            -- overlap=replace with nothing running: the first fire starts, and a later one waiting in
            -- this claim asks it to stop at once.
            SELECT w.row_id, w.id, w.job, w.overlap, w.status, w.detail,
                   (w.overlap = 'replace' AND w.status = 'running' AND EXISTS (
                       SELECT 1 FROM within AS o
                       WHERE o.job = w.job AND o.id <> w.id AND o.status IS NULL AND NOT o.early
                   )) AS cancel_at_start
            FROM within AS w
            WHERE w.status IS NOT NULL
        ),
        changed AS (
            UPDATE baton_executions AS e
            SET status = a.status,
                node = CASE
                    WHEN a.status = 'running' THEN (SELECT p.node FROM params AS p)
                    ELSE e.node
                END,
                token = CASE
                    WHEN a.status = 'running' THEN nextval('baton_fencing_tokens')
                    ELSE e.token
                END,
                started_at = CASE
                    WHEN a.status = 'running' THEN GREATEST(clock.now_ms, e.due_at)
                    ELSE e.started_at
                END,
                heartbeat_at = CASE WHEN a.status = 'running' THEN clock.now_ms ELSE e.heartbeat_at END,
                finished_at = CASE WHEN a.status = 'running' THEN e.finished_at ELSE clock.now_ms END,
                detail = CASE WHEN a.status = 'running' THEN e.detail ELSE a.detail END,
                cancel_requested = e.cancel_requested OR a.cancel_at_start
            FROM actions AS a
            CROSS JOIN clock
            WHERE e.id = a.id
            RETURNING e.id, e.job, e.fire_key, e.scheduled_at, e.attempt, e.trigger, e.status, e.due_at,
                      e.node, e.token, e.created_at, e.started_at, e.heartbeat_at, e.finished_at,
                      e.detail, e.covers_through, e.covers_count, e.cancel_requested
        ),
        dequeued AS (
            -- The queue rows of the executions started or settled.
            DELETE FROM baton_execution_queue AS q
            WHERE q.ctid = ANY (ARRAY(SELECT a.row_id FROM actions AS a))
        ),
        runs AS (
            INSERT INTO baton_execution_runs (id, job)
            SELECT c.id, c.job FROM changed AS c WHERE c.status = 'running'
        ),
        started AS (
            -- Every locked job this claim started or settled an execution of: record the one it
            -- started (a new row version either way, which later 'buffer-one' claims rely on).
            UPDATE baton_jobs AS j
            SET running_execution = COALESCE(t.started, j.running_execution)
            FROM (
                SELECT a.job, max(a.id) FILTER (WHERE a.status = 'running') AS started
                FROM actions AS a
                WHERE a.overlap <> 'allow'
                GROUP BY a.job
            ) AS t
            WHERE j.name = t.job
        ),
        to_cancel AS MATERIALIZED (
            -- overlap=replace while one runs: ask it to stop. One locked elsewhere (being completed or
            -- heartbeated) is skipped, and asked again by the next claim.
            SELECT r.id
            FROM baton_executions AS r
            WHERE r.id = ANY (ARRAY(
                SELECT w.running_id FROM within AS w
                WHERE w.overlap = 'replace' AND w.status IS NULL AND w.running_id IS NOT NULL
                  AND NOT w.early
            ))
              AND r.token IS NOT NULL
              AND r.finished_at IS NULL
              AND NOT r.cancel_requested
            FOR UPDATE OF r SKIP LOCKED
        ),
        cancelled AS (
            UPDATE baton_executions AS e
            SET cancel_requested = TRUE
            WHERE e.id = ANY (ARRAY(SELECT t.id FROM to_cancel AS t))
        ),
        waiting AS (
            -- When to look again: the earliest due instant of the claimed jobs' executions this claim
            -- leaves scheduled (the snapshot still shows the ones it changed as scheduled). A claim
            -- that started all it could is followed by another at once, so it skips the search (a
            -- walk of the due index that, in a busy queue, crosses the versions claims left behind).
            SELECT clock.now_ms,
                   CASE WHEN (SELECT count(*) FROM actions AS a WHERE a.status = 'running')
                             < (SELECT p.startable FROM params AS p)
                   THEN (
                       SELECT w.due_at
                       FROM baton_execution_queue AS w
                       WHERE w.id <> ALL (ARRAY(SELECT a.id FROM actions AS a))
                         AND (cardinality((SELECT p.jobs FROM params AS p)) = 0
                              OR w.job = ANY ((SELECT p.jobs FROM params AS p)::TEXT[]))
                       ORDER BY w.due_at, w.id
                       LIMIT 1
                   ) END AS next_due_ms
            FROM clock
        )
        -- One row per changed execution, each carrying now_ms and next_due_ms; a single row with a
        -- NULL id when the claim changed nothing.
        SELECT w.now_ms, w.next_due_ms,
               c.id, c.job, c.fire_key, c.scheduled_at, c.attempt, c.trigger, c.status, c.due_at,
               c.node, c.token, c.created_at, c.started_at, c.heartbeat_at, c.finished_at, c.detail,
               c.covers_through, c.covers_count, c.cancel_requested
        FROM waiting AS w
        LEFT JOIN changed AS c ON TRUE
        ORDER BY c.due_at, c.id;
END
$claim$;
