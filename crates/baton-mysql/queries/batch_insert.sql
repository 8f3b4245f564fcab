-- Creates a running batch.
--   ? job name, strategy, now (ms).
INSERT INTO baton_batches (name, strategy, state, created_at)
VALUES (?, ?, 'running', ?)
