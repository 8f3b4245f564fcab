-- Fails a claimed partition with its error: compare-and-set on its token. Matched rows: 1
-- failed, 0 not claimed under the token.
--   ? error, partition id, token.
UPDATE baton_partitions
SET state = 'failed', error = ?, finished_at = CAST(FLOOR(UNIX_TIMESTAMP(SYSDATE(6)) * 1000) AS SIGNED)
WHERE id = ? AND token = ? AND state = 'claimed'
