-- Extends every listed lease of one holder, each by its own stored TTL, in one statement, with
-- one renewal instant for all (as in lease_renew.sql, answered as LAST_INSERT_ID). When fewer
-- rows match than were listed, the caller reads which are held (lease_held.sql).
-- /*pairs*/ is replaced by one "(?, ?)" per lease: (name, token).
--   ? holder, then the pairs.
UPDATE baton_leases
SET renewed_at = LAST_INSERT_ID(CAST(FLOOR(UNIX_TIMESTAMP(NOW(6)) * 1000) AS SIGNED)),
    expires_at = renewed_at + ttl_ms
WHERE holder = ?
  AND (name, token) IN (/*pairs*/)
  AND expires_at > CAST(FLOOR(UNIX_TIMESTAMP(SYSDATE(6)) * 1000) AS SIGNED)
