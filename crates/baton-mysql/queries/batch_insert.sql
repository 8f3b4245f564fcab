-- Creates a running batch.
--   ? job name, strategy, whether idle nodes steal its pending partitions, now (ms).
INSERT INTO baton_batches (name, strategy, stealing, state, created_at)
VALUES (?, ?, ?, 'running', ?)
