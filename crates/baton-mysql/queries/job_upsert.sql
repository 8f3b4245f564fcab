-- Registers a job at the given time (now), or replaces its definition, keeping its id, its
-- controls (paused, skip_through) and created_at. The caller reads the job back in the same
-- transaction (there is no RETURNING).
--   ? name, schedule_kind, schedule_expr, schedule_zone, overlap, misfire,
--     misfire_threshold_ms, catch_up_window_ms, catch_up_max, starting_deadline_ms, jitter_ms,
--     timeout_ms, retry_max_attempts, retry_initial_ms, retry_max_ms, keep_succeeded,
--     keep_failed, max_age_ms, now, now.
INSERT INTO baton_jobs (
    name, schedule_kind, schedule_expr, schedule_zone, overlap, misfire, misfire_threshold_ms,
    catch_up_window_ms, catch_up_max, starting_deadline_ms, jitter_ms, timeout_ms,
    retry_max_attempts, retry_initial_ms, retry_max_ms, keep_succeeded, keep_failed, max_age_ms,
    created_at, updated_at
)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
ON DUPLICATE KEY UPDATE
    schedule_kind        = VALUES(schedule_kind),
    schedule_expr        = VALUES(schedule_expr),
    schedule_zone        = VALUES(schedule_zone),
    overlap              = VALUES(overlap),
    misfire              = VALUES(misfire),
    misfire_threshold_ms = VALUES(misfire_threshold_ms),
    catch_up_window_ms   = VALUES(catch_up_window_ms),
    catch_up_max         = VALUES(catch_up_max),
    starting_deadline_ms = VALUES(starting_deadline_ms),
    jitter_ms            = VALUES(jitter_ms),
    timeout_ms           = VALUES(timeout_ms),
    retry_max_attempts   = VALUES(retry_max_attempts),
    retry_initial_ms     = VALUES(retry_initial_ms),
    retry_max_ms         = VALUES(retry_max_ms),
    keep_succeeded       = VALUES(keep_succeeded),
    keep_failed          = VALUES(keep_failed),
    max_age_ms           = VALUES(max_age_ms),
    updated_at           = VALUES(updated_at)
