-- One page of jobs by id (keyset pagination), optionally only those updated since an instant.
--   $1 last id already seen (0 for the first page), $2 rows to read (page size + 1),
--   $3 the earliest updated_at listed (ms).
SELECT id, name, schedule_kind, schedule_expr, schedule_zone, overlap, misfire,
       misfire_threshold_ms, catch_up_window_ms, catch_up_max, starting_deadline_ms, jitter_ms,
       timeout_ms, retry_max_attempts, retry_initial_ms, retry_max_ms, keep_succeeded,
       keep_failed, max_age_ms, paused, skip_through, created_at, updated_at
FROM baton_jobs
WHERE id > $1 AND updated_at >= $3
ORDER BY id
LIMIT $2
