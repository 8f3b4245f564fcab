-- Finishes the running batch ?1 at ?2 in state ?3 with failure ?4 (NULL for a success).
UPDATE baton_batches
SET state = ?3, failure = ?4, finished_at = ?2
WHERE id = ?1 AND state = 'running'
RETURNING id, name, strategy, stealing, state, created_at, finished_at, failure
