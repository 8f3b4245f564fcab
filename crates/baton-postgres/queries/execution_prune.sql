-- Deletes one job's finished executions that its retention no longer keeps, oldest first, at
-- most a batch, in one statement. Among finished executions the newest (by id) succeeded ones
-- and the newest others are kept up to their counts; any finished longer ago than the maximum
-- age goes. Never deleted: live executions, the job's execution with the greatest scheduled
-- instant, and its schedule record that reaches furthest (what job_last_fires.sql reads).
-- The job's pruned watermark (baton_pruned) rises to the last instant the deleted records of
-- its schedule (fires, retries, external triggers) accounted for.
--   $1 job, $2 succeeded kept, $3 others kept, $4 max age (ms), $5 most deleted.
-- Answers one row: deleted (count).
WITH clock AS MATERIALIZED (
    SELECT baton_now_ms() AS now_ms
),
newest AS (
    (SELECT n.id
     FROM baton_executions AS n
     WHERE n.job = $1
     ORDER BY n.scheduled_at DESC, n.id DESC
     LIMIT 1)
    UNION ALL
    (SELECT n.id
     FROM baton_executions AS n
     WHERE n.job = $1 AND n.trigger = 'schedule'
     ORDER BY GREATEST(n.scheduled_at, COALESCE(n.covers_through, n.scheduled_at)) DESC,
              n.id DESC
     LIMIT 1)
),
ranked AS (
    SELECT f.id, f.finished_at,
           row_number() OVER (PARTITION BY f.status = 'succeeded' ORDER BY f.id DESC) AS newness,
           CASE WHEN f.status = 'succeeded' THEN $2::BIGINT ELSE $3::BIGINT END AS kept
    FROM baton_executions AS f
    WHERE f.job = $1 AND f.status NOT IN ('scheduled', 'running')
),
doomed AS (
    SELECT r.id
    FROM ranked AS r
    CROSS JOIN clock
    WHERE (r.newness > r.kept OR r.finished_at < clock.now_ms - LEAST($4::BIGINT, clock.now_ms))
      AND r.id NOT IN (SELECT n.id FROM newest AS n)
    ORDER BY r.id
    LIMIT $5
),
deleted AS (
    DELETE FROM baton_executions AS e
    USING doomed AS d
    WHERE e.id = d.id AND e.status NOT IN ('scheduled', 'running')
    RETURNING e.id, e.trigger, GREATEST(e.scheduled_at, COALESCE(e.covers_through, e.scheduled_at)) AS through
),
raised AS (
    INSERT INTO baton_pruned AS p (job, through)
    SELECT $1, max(d.through)
    FROM deleted AS d
    WHERE d.trigger <> 'manual'
    HAVING count(*) > 0
    ON CONFLICT (job) DO UPDATE SET through = GREATEST(p.through, excluded.through)
)
SELECT count(*) AS deleted FROM deleted
