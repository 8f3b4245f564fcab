-- Asks the running executions in ?1, a JSON array of ids, to stop.
UPDATE baton_executions
SET cancel_requested = 1
WHERE status = 'running' AND id IN (SELECT value FROM json_each(?1))
