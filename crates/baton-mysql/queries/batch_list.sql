-- A page of batches by id, after a cursor, optionally of one job and in one state.
--   ? last id seen (0 for the first page), job name (NULL: any), job name, state (NULL: any),
--   state, rows (page size + 1).
SELECT id, name, strategy, stealing, state, created_at, finished_at, failure
FROM baton_batches
WHERE id > ? AND (? IS NULL OR name = ?) AND (? IS NULL OR state = ?)
ORDER BY id
LIMIT ?
