-- Records a batch of fires and missed runs in one statement.
--   $1 fire jobs, $2 fire instants, $3 fire due instants, $4 fire keys (pairwise arrays);
--   $5 missed jobs, $6 first instants, $7 last instants, $8 fire counts, $9 reasons,
--   $10 keys of the first instants (pairwise arrays).
-- A fire of a paused job is recorded as skipped ('job is paused'), one at or before the job's
-- skip_through as skipped ('skip-next'); a fire already recorded, or at an instant a missed run
-- of its job covers, is left as it is; a missed run is left out when a schedule record of its
-- job already accounts for one of its instants (a fire at one of them, or a missed run reaching
-- into it); a fire left scheduled is queued (baton_execution_queue). Runs in the batch's
-- transaction, after execution_record_lock_fires.sql or execution_record_lock_missed.sql,
-- which make batches of one job that could disagree about an instant take turns: the first
-- to record an instant decides it. When any job is not registered nothing is
-- recorded and the unknown names are answered. Rows are inserted in (job, fire key) order, so
-- that leaders racing over overlapping batches wait for each other's keys in one order and
-- never deadlock. Workers are woken on commit when something was recorded as scheduled.
-- Answers one row: inserted (count), unknown (names).
WITH clock AS MATERIALIZED (
    SELECT baton_now_ms() AS now_ms
),
fires AS (
    SELECT f.job, f.scheduled_at, f.due_at, f.fire_key, f.position
    FROM unnest($1::TEXT[], $2::BIGINT[], $3::BIGINT[], $4::TEXT[])
        WITH ORDINALITY AS f (job, scheduled_at, due_at, fire_key, position)
),
missed AS (
    SELECT m.job, m.first_at, m.last_at, m.fire_count, m.reason, m.fire_key, m.position
    FROM unnest($5::TEXT[], $6::BIGINT[], $7::BIGINT[], $8::BIGINT[], $9::TEXT[], $10::TEXT[])
        WITH ORDINALITY AS m (job, first_at, last_at, fire_count, reason, fire_key, position)
),
unknown AS MATERIALIZED (
    SELECT DISTINCT n.job
    FROM (SELECT f.job FROM fires AS f UNION ALL SELECT m.job FROM missed AS m) AS n
    WHERE NOT EXISTS (SELECT 1 FROM baton_jobs AS j WHERE j.name = n.job)
),
planned AS (
    SELECT f.job, f.fire_key, f.scheduled_at, f.due_at, 2 AS part, f.position,
           CASE
               WHEN j.paused THEN 'job is paused'
               WHEN f.scheduled_at <= j.skip_through THEN 'skip-next'
           END AS skipped_because,
           NULL::TEXT AS missed_because, NULL::BIGINT AS covers_through, 1::BIGINT AS covers_count
    FROM fires AS f
    JOIN baton_jobs AS j ON j.name = f.job
    WHERE NOT EXISTS (
        SELECT 1
        FROM baton_executions AS r
        WHERE r.job = f.job
          AND r.covers_through IS NOT NULL
          AND r.scheduled_at <= f.scheduled_at
          AND r.covers_through >= f.scheduled_at
    )
    UNION ALL
    SELECT m.job, m.fire_key, m.first_at, m.first_at, 1, m.position, NULL, m.reason, m.last_at,
           m.fire_count
    FROM missed AS m
    WHERE NOT EXISTS (
        SELECT 1
        FROM baton_executions AS r
        WHERE r.job = m.job
          AND r.trigger = 'schedule'
          AND r.scheduled_at BETWEEN m.first_at AND m.last_at
    )
      AND NOT EXISTS (
        SELECT 1
        FROM baton_executions AS r
        WHERE r.job = m.job
          AND r.covers_through IS NOT NULL
          AND r.scheduled_at < m.first_at
          AND r.covers_through >= m.first_at
    )
),
inserted AS (
    INSERT INTO baton_executions
        (job, fire_key, scheduled_at, attempt, trigger, status, due_at, created_at, finished_at,
         detail, covers_through, covers_count)
    SELECT p.job, p.fire_key, p.scheduled_at, 1, 'schedule',
           CASE
               WHEN p.missed_because IS NOT NULL THEN 'missed'
               WHEN p.skipped_because IS NOT NULL THEN 'skipped'
               ELSE 'scheduled'
           END,
           p.due_at, clock.now_ms,
           CASE
               WHEN COALESCE(p.missed_because, p.skipped_because) IS NOT NULL THEN clock.now_ms
           END,
           COALESCE(p.missed_because, p.skipped_because), p.covers_through, p.covers_count
    FROM planned AS p
    CROSS JOIN clock
    WHERE NOT EXISTS (SELECT 1 FROM unknown)
    ORDER BY p.job, p.fire_key, p.part, p.position
    ON CONFLICT (job, fire_key, attempt) DO NOTHING
    RETURNING id, job, due_at, scheduled_at, trigger, status
),
queued AS (
    INSERT INTO baton_execution_queue (id, job, due_at, scheduled_at, trigger)
    SELECT i.id, i.job, i.due_at, i.scheduled_at, i.trigger
    FROM inserted AS i
    WHERE i.status = 'scheduled'
)
SELECT (SELECT count(*) FROM inserted) AS inserted,
       ARRAY(SELECT u.job FROM unknown AS u ORDER BY u.job) AS unknown,
       (SELECT count(*)
        FROM (SELECT pg_notify('baton_execution_due', '')
              WHERE EXISTS (SELECT 1 FROM inserted AS i WHERE i.status = 'scheduled')) AS woken
       ) AS woken
