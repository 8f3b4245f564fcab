-- Stamps a locked, active node's heartbeat and load.
--   ? now (ms), load, seq.
UPDATE baton_nodes
SET heartbeat_at = ?, reported_load = ?
WHERE seq = ?
