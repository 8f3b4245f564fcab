-- Locks the rows of the listed jobs in share mode for the rest of the transaction, in name
-- order: batches of fires without missed runs share it with each other, and exclude claims
-- and batches with missed runs of the same jobs (job_lock.sql).
-- /*list*/ is replaced by one "?" per job name.
SELECT id, name, schedule_kind, schedule_expr, schedule_zone, overlap, misfire, misfire_threshold_ms,
       catch_up_window_ms, catch_up_max, starting_deadline_ms, jitter_ms, timeout_ms,
       retry_max_attempts, retry_initial_ms, retry_max_ms, keep_succeeded, keep_failed, max_age_ms,
       paused, skip_through, created_at, updated_at
FROM baton_jobs
WHERE name IN (/*list*/)
ORDER BY name
LOCK IN SHARE MODE
