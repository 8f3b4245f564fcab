-- Finishes a locked, running batch.
--   ? state, failure (NULL for a success), now (ms), batch id.
UPDATE baton_batches
SET state = ?, failure = ?, finished_at = ?
WHERE id = ?
