-- Completes a claimed partition with its result (may be NULL): compare-and-set on its token.
-- Matched rows: 1 completed, 0 not claimed under the token.
--   ? result, partition id, token.
UPDATE baton_partitions
SET state = 'completed', result = ?, finished_at = CAST(FLOOR(UNIX_TIMESTAMP(SYSDATE(6)) * 1000) AS SIGNED)
WHERE id = ? AND token = ? AND state = 'claimed'
