-- Moves locked nodes to one state.
-- /*seqs*/ is replaced by one placeholder per node.
--   ? state, now (ms), then the seqs.
UPDATE baton_nodes
SET state = ?, state_changed_at = ?
WHERE seq IN (/*seqs*/)
