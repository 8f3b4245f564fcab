-- Claims locked pending partitions for a node, each under its own token; each counts one more
-- attempt and keeps its checkpoint and progress.
-- /*cases*/ is replaced by one "WHEN ? THEN ?" per partition (id, token), /*ids*/ by one
-- placeholder per partition id.
--   ? node, then the cases, then now (ms), now, then the ids.
UPDATE baton_partitions
SET state = 'claimed', node = ?, token = CASE id /*cases*/ END, attempts = attempts + 1,
    claimed_at = ?, heartbeat_at = ?
WHERE id IN (/*ids*/)
