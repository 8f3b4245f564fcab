-- The output kept with an execution.
--   ? execution id.
SELECT output FROM baton_execution_outputs WHERE execution_id = ?
