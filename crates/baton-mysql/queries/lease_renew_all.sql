-- Extends every listed lease of one holder, each by its own stored TTL, in one statement;
-- the caller reads the renewed rows back in the same transaction (lease_held.sql).
-- /*pairs*/ is replaced by one "(?, ?)" per lease: (name, token).
--   ? holder, then the pairs.
UPDATE baton_leases
SET renewed_at = CAST(FLOOR(UNIX_TIMESTAMP(SYSDATE(6)) * 1000) AS SIGNED),
    expires_at = renewed_at + ttl_ms
WHERE holder = ?
  AND (name, token) IN (/*pairs*/)
  AND expires_at > CAST(FLOOR(UNIX_TIMESTAMP(SYSDATE(6)) * 1000) AS SIGNED)
