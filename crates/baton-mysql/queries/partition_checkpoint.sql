-- Replaces a claimed partition's checkpoint and progress: compare-and-set on its token, judged
-- on the row's latest version once it is locked. Matched rows: 1 saved, 0 not claimed under the
-- token.
--   ? checkpoint, progress, partition id, token.
UPDATE baton_partitions
SET checkpoint = ?, progress = ?, heartbeat_at = CAST(FLOOR(UNIX_TIMESTAMP(SYSDATE(6)) * 1000) AS SIGNED)
WHERE id = ? AND token = ? AND state = 'claimed'
