SELECT output FROM baton_execution_outputs WHERE execution_id = ?1
