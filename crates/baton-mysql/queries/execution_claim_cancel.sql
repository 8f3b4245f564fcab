-- Asks the listed running executions to stop (overlap replace).
-- /*list*/ is replaced by one "?" per id.
UPDATE baton_executions
SET cancel_requested = TRUE
WHERE status = 'running' AND id IN (/*list*/)
