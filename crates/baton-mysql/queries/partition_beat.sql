-- Stamps the heartbeats of locked, held partitions with their progress, which only grows (a
-- heartbeat sent before a checkpoint must not set it back).
-- /*cases*/ is replaced by one "WHEN ? THEN ?" per partition (id, progress), /*ids*/ by one
-- placeholder per partition id.
--   ? now (ms), then the cases, then the ids.
UPDATE baton_partitions
SET heartbeat_at = ?, progress = GREATEST(progress, CASE id /*cases*/ END)
WHERE id IN (/*ids*/)
