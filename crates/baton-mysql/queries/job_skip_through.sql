-- Marks a job's fires up to an instant to be skipped, at the given time. Matched rows: 1 done,
-- 0 not registered.
--   ? through (ms), now, name.
UPDATE baton_jobs
SET skip_through = ?, updated_at = ?
WHERE name = ?
