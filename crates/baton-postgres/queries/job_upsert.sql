-- Registers a job or replaces its definition, keeping its id, controls (paused, skip_through),
-- running execution and created_at. One statement.
--   $1 name, $2 schedule kind, $3 expression, $4 zone, $5 overlap, $6 misfire,
--   $7 misfire threshold ms, $8 catch-up window ms, $9 catch-up max, $10 starting deadline ms,
--   $11 jitter ms, $12 timeout ms, $13 retry max attempts, $14 retry initial ms,
--   $15 retry max ms, $16 keep succeeded, $17 keep failed, $18 max age ms.
INSERT INTO baton_jobs AS j
    (name, schedule_kind, schedule_expr, schedule_zone, overlap, misfire, misfire_threshold_ms,
     catch_up_window_ms, catch_up_max, starting_deadline_ms, jitter_ms, timeout_ms,
     retry_max_attempts, retry_initial_ms, retry_max_ms, keep_succeeded, keep_failed,
     max_age_ms, created_at, updated_at)
SELECT $1::TEXT, $2::TEXT, $3::TEXT, $4::TEXT, $5::TEXT, $6::TEXT, $7::BIGINT, $8::BIGINT,
       $9::BIGINT, $10::BIGINT, $11::BIGINT, $12::BIGINT, $13::BIGINT, $14::BIGINT, $15::BIGINT,
       $16::BIGINT, $17::BIGINT, $18::BIGINT, clock.now_ms, clock.now_ms
FROM (SELECT baton_now_ms() AS now_ms) AS clock
ON CONFLICT (name) DO UPDATE SET
    schedule_kind = excluded.schedule_kind,
    schedule_expr = excluded.schedule_expr,
    schedule_zone = excluded.schedule_zone,
    overlap = excluded.overlap,
    misfire = excluded.misfire,
    misfire_threshold_ms = excluded.misfire_threshold_ms,
    catch_up_window_ms = excluded.catch_up_window_ms,
    catch_up_max = excluded.catch_up_max,
    starting_deadline_ms = excluded.starting_deadline_ms,
    jitter_ms = excluded.jitter_ms,
    timeout_ms = excluded.timeout_ms,
    retry_max_attempts = excluded.retry_max_attempts,
    retry_initial_ms = excluded.retry_initial_ms,
    retry_max_ms = excluded.retry_max_ms,
    keep_succeeded = excluded.keep_succeeded,
    keep_failed = excluded.keep_failed,
    max_age_ms = excluded.max_age_ms,
    updated_at = excluded.updated_at
RETURNING j.id, j.name, j.schedule_kind, j.schedule_expr, j.schedule_zone, j.overlap, j.misfire,
          j.misfire_threshold_ms, j.catch_up_window_ms, j.catch_up_max, j.starting_deadline_ms,
          j.jitter_ms, j.timeout_ms, j.retry_max_attempts, j.retry_initial_ms, j.retry_max_ms,
          j.keep_succeeded, j.keep_failed, j.max_age_ms, j.paused, j.skip_through, j.created_at,
          j.updated_at
