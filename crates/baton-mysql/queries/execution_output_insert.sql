-- Keeps the output of an execution completed in the same transaction.
--   ? execution id, output.
INSERT INTO baton_execution_outputs (execution_id, output) VALUES (?, ?)
