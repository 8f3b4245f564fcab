-- Asks an execution to stop at the given time: a running one is flagged for its worker, a
-- scheduled one is cancelled at once. Matched rows: 1 done, 0 in any other status.
--   ? now, id.
UPDATE baton_executions
SET cancel_requested = CASE WHEN status = 'running' THEN TRUE ELSE cancel_requested END,
    detail           = CASE WHEN status = 'scheduled' THEN 'cancelled before it started'
                            ELSE detail END,
    finished_at      = CASE WHEN status = 'scheduled' THEN ? ELSE finished_at END,
    status           = CASE WHEN status = 'scheduled' THEN 'cancelled' ELSE status END
WHERE id = ? AND status IN ('scheduled', 'running')
