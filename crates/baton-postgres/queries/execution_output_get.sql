-- Reads the output recorded with execution $1.
SELECT output FROM baton_execution_outputs WHERE execution_id = $1
