-- A page of batches after id ?1, in state ?2 (any state when NULL), at most ?3 rows, by id.
SELECT id, name, strategy, stealing, state, created_at, finished_at, failure
FROM baton_batches
WHERE id > ?1 AND (?2 IS NULL OR state = ?2)
ORDER BY id
LIMIT ?3
