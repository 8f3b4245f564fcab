-- Locks, lowest id first, up to a limit of pending partitions assigned to one node, or (for a
-- NULL node) to no one, optionally only of the listed batches. The index on (state, node, id)
-- is read in order and the scan stops at the limit, so no more rows are locked than taken;
-- SKIP LOCKED passes over partitions that racing claimers (or a rehoming) hold, so claimers
-- never wait for each other nor take one partition twice.
-- /*batches*/ is replaced by one placeholder per batch id (one NULL when any batch will do).
--   ? node (NULL: unassigned), any batch (TRUE/FALSE), then the batch ids, then the limit.
SELECT id
FROM baton_partitions FORCE INDEX (baton_partitions_claimable)
WHERE state = 'pending'
  AND node <=> ?
  AND (? OR batch IN (/*batches*/))
ORDER BY state, node, id
LIMIT ?
FOR UPDATE SKIP LOCKED
