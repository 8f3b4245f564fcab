-- Pauses or resumes a job at the given time. Matched rows: 1 done, 0 not registered.
--   ? paused, now, name.
UPDATE baton_jobs
SET paused = ?, updated_at = ?
WHERE name = ?
