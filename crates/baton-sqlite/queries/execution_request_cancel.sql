-- Asks execution ?1 to stop at ?2: a running one is flagged for its worker, a scheduled one is
-- cancelled at once. Any other status is left alone (no row changes).
UPDATE baton_executions
SET cancel_requested = CASE WHEN status = 'running' THEN 1 ELSE cancel_requested END,
    status           = CASE WHEN status = 'scheduled' THEN 'cancelled' ELSE status END,
    detail           = CASE WHEN status = 'scheduled' THEN 'cancelled before it started'
                            ELSE detail END,
    finished_at      = CASE WHEN status = 'scheduled' THEN ?2 ELSE finished_at END
WHERE id = ?1 AND status IN ('scheduled', 'running')
