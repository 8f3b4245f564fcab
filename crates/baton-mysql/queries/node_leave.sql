-- Marks a locked, active node as left.
--   ? now (ms), seq.
UPDATE baton_nodes
SET state = 'left', state_changed_at = ?
WHERE seq = ?
