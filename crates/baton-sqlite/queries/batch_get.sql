-- Reads batch ?1.
SELECT id, name, strategy, stealing, state, created_at, finished_at, failure
FROM baton_batches
WHERE id = ?1
