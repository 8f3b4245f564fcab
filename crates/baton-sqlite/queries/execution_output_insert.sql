-- Keeps the output ?2 of execution ?1, completed in the same transaction.
INSERT INTO baton_execution_outputs (execution_id, output) VALUES (?1, ?2)
