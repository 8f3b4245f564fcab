-- Extends one lease by its stored TTL: compare-and-set on (name, holder, token), refused once
-- the lease has expired on this server's clock (SYSDATE(6), read after the row lock: see
-- now.sql). The client counts matched rows (CLIENT_FOUND_ROWS): 1 renewed, 0 lost.
--   ? lease name, holder, token.
UPDATE baton_leases
SET renewed_at = CAST(FLOOR(UNIX_TIMESTAMP(SYSDATE(6)) * 1000) AS SIGNED),
    expires_at = renewed_at + ttl_ms
WHERE name = ?
  AND holder = ?
  AND token = ?
  AND expires_at > CAST(FLOOR(UNIX_TIMESTAMP(SYSDATE(6)) * 1000) AS SIGNED)
