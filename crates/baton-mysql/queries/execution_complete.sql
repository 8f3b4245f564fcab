-- Finishes the listed executions, each with its own final status and detail; run on the rows
-- execution_lock_running.sql locked in the same transaction, so every listed row still runs.
-- /*cases*/ is replaced by one "WHEN ? THEN ?" per execution, /*ids*/ by one "?" per id.
--   the (id, status) cases, the (id, detail) cases, now (ms), then the ids.
UPDATE baton_executions
SET status = CASE id /*cases*/ END,
    detail = CASE id /*cases*/ END,
    finished_at = ?
WHERE id IN (/*ids*/) AND status = 'running'
