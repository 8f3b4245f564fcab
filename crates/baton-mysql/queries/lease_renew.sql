-- Extends one lease by its stored TTL: compare-and-set on (name, holder, token), refused once
-- the lease has expired on this server's clock (SYSDATE(6), read after the row lock: see
-- now.sql). The client counts matched rows (CLIENT_FOUND_ROWS): 1 renewed, 0 lost.
-- The renewal instant is the statement's start (NOW(6)): after the holder sent it, which is
-- where the holder's own deadline runs from, so the store's expiry still comes after that
-- deadline. It is answered as the statement's LAST_INSERT_ID, so that nothing is read back.
--   ? lease name, holder, token.
UPDATE baton_leases
SET renewed_at = LAST_INSERT_ID(CAST(FLOOR(UNIX_TIMESTAMP(NOW(6)) * 1000) AS SIGNED)),
    expires_at = renewed_at + ttl_ms
WHERE name = ?
  AND holder = ?
  AND token = ?
  AND expires_at > CAST(FLOOR(UNIX_TIMESTAMP(SYSDATE(6)) * 1000) AS SIGNED)
