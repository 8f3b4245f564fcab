-- Assigns locked pending partitions to a node, each under its own new token.
-- /*cases*/ is replaced by one "WHEN ? THEN ?" per partition (id, token), /*ids*/ by one
-- placeholder per partition id.
--   ? node, then the cases, then the ids.
UPDATE baton_partitions
SET node = ?, token = CASE id /*cases*/ END
WHERE id IN (/*ids*/)
