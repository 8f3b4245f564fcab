-- One page of batches by id (keyset pagination), optionally only those of one job or in one
-- state.
--   $1 last id already seen (0 for the first page), $2 job name (NULL: any), $3 state (NULL:
--   any), $4 rows to read (page size + 1).
SELECT id, name, strategy, stealing, state, created_at, finished_at, failure
FROM baton_batches
WHERE id > $1
  AND ($2::TEXT IS NULL OR name = $2::TEXT)
  AND ($3::TEXT IS NULL OR state = $3::TEXT)
ORDER BY id
LIMIT $4
