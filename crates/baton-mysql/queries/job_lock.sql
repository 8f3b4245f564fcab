-- Locks the rows of the listed jobs for the rest of the transaction, in name order (the same
-- order everywhere, so that two transactions locking several jobs do not deadlock), and reads
-- them after the lock is held. Claims and batches with missed runs take this exclusive lock.
-- /*list*/ is replaced by one "?" per job name.
SELECT id, name, schedule_kind, schedule_expr, schedule_zone, overlap, misfire, misfire_threshold_ms,
       catch_up_window_ms, catch_up_max, starting_deadline_ms, jitter_ms, timeout_ms,
       retry_max_attempts, retry_initial_ms, retry_max_ms, keep_succeeded, keep_failed, max_age_ms,
       paused, skip_through, created_at, updated_at
FROM baton_jobs
WHERE name IN (/*list*/)
ORDER BY name
FOR UPDATE
