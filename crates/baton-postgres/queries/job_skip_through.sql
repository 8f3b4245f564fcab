-- Marks a job's fires up to and including an instant to be recorded as skipped. No row
-- answered means the job is not registered.
--   $1 name, $2 instant (ms).
UPDATE baton_jobs AS j
SET skip_through = $2,
    updated_at = baton_now_ms()
WHERE j.name = $1
RETURNING j.id, j.name, j.schedule_kind, j.schedule_expr, j.schedule_zone, j.overlap, j.misfire,
          j.misfire_threshold_ms, j.catch_up_window_ms, j.catch_up_max, j.starting_deadline_ms,
          j.jitter_ms, j.timeout_ms, j.retry_max_attempts, j.retry_initial_ms, j.retry_max_ms,
          j.keep_succeeded, j.keep_failed, j.max_age_ms, j.paused, j.skip_through, j.created_at,
          j.updated_at
