-- Renews every listed (name, token) pair still held by the holder and unexpired at ?1, each by
-- its own TTL, in one statement: the same rule as baton_core::lease::transition::renew.
UPDATE baton_leases
SET renewed_at = ?1, expires_at = ?1 + ttl_ms
WHERE holder = ?2
  AND expires_at > ?1
  AND (name, token) IN (
      SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]') FROM json_each(?3)
  )
RETURNING name, holder, token, acquired_at, renewed_at, expires_at, ttl_ms, released
