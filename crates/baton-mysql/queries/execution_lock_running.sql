-- Locks the listed executions that still run, in id order, and answers their ids and tokens:
-- a completion whose (id, token) is among them finishes (execution_complete.sql), the others
-- are no longer running under their token.
-- /*ids*/ is replaced by one "?" per id.
SELECT id, token
FROM baton_executions
WHERE id IN (/*ids*/) AND status = 'running'
ORDER BY id
FOR UPDATE
