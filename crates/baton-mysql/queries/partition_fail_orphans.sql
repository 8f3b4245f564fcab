-- Fails locked partitions that could not move, each with its reason.
-- /*cases*/ is replaced by one "WHEN ? THEN ?" per partition (id, error), /*ids*/ by one
-- placeholder per partition id.
--   ? now (ms), then the cases, then the ids.
UPDATE baton_partitions
SET state = 'failed', finished_at = ?, error = CASE id /*cases*/ END
WHERE id IN (/*ids*/)
