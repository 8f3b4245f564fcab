-- Deletes the listed executions (their outputs go with them).
-- /*list*/ is replaced by one "?" per id.
DELETE FROM baton_executions WHERE id IN (/*list*/)
