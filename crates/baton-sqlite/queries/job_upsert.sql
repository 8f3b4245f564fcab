-- Registers job ?1 at ?19 (now), or replaces its definition, keeping its id, controls
-- (paused, skip_through) and created_at.
INSERT INTO baton_jobs (
    name, schedule_kind, schedule_expr, schedule_zone, overlap, misfire, misfire_threshold_ms,
    catch_up_window_ms, catch_up_max, starting_deadline_ms, jitter_ms, timeout_ms,
    retry_max_attempts, retry_initial_ms, retry_max_ms, keep_succeeded, keep_failed, max_age_ms,
    created_at, updated_at
)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?19)
ON CONFLICT (name) DO UPDATE SET
    schedule_kind        = excluded.schedule_kind,
    schedule_expr        = excluded.schedule_expr,
    schedule_zone        = excluded.schedule_zone,
    overlap              = excluded.overlap,
    misfire              = excluded.misfire,
    misfire_threshold_ms = excluded.misfire_threshold_ms,
    catch_up_window_ms   = excluded.catch_up_window_ms,
    catch_up_max         = excluded.catch_up_max,
    starting_deadline_ms = excluded.starting_deadline_ms,
    jitter_ms            = excluded.jitter_ms,
    timeout_ms           = excluded.timeout_ms,
    retry_max_attempts   = excluded.retry_max_attempts,
    retry_initial_ms     = excluded.retry_initial_ms,
    retry_max_ms         = excluded.retry_max_ms,
    keep_succeeded       = excluded.keep_succeeded,
    keep_failed          = excluded.keep_failed,
    max_age_ms           = excluded.max_age_ms,
    updated_at           = excluded.updated_at
RETURNING id, name, schedule_kind, schedule_expr, schedule_zone, overlap, misfire, misfire_threshold_ms,
       catch_up_window_ms, catch_up_max, starting_deadline_ms, jitter_ms, timeout_ms,
       retry_max_attempts, retry_initial_ms, retry_max_ms, keep_succeeded, keep_failed, max_age_ms,
       paused, skip_through, created_at, updated_at
