-- Locks one batch record and reads it, so that finishers of one batch take turns.
--   ? batch id.
SELECT id, name, strategy, stealing, state, created_at, finished_at, failure
FROM baton_batches
WHERE id = ?
FOR UPDATE
