-- Puts locked partitions back to pending, each assigned to its node (NULL: any node), keeping
-- token, checkpoint, progress and attempts.
-- /*cases*/ is replaced by one "WHEN ? THEN ?" per partition (id, node), /*ids*/ by one
-- placeholder per partition id.
UPDATE baton_partitions
SET state = 'pending', error = NULL, node = CASE id /*cases*/ END
WHERE id IN (/*ids*/)
