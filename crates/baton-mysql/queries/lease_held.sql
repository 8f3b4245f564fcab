-- Reads the listed leases of one holder that are held at this server's time.
-- /*pairs*/ is replaced by one "(?, ?)" per lease: (name, token).
--   ? holder, then the pairs.
SELECT name, holder, token, acquired_at, renewed_at, expires_at, ttl_ms, released,
       acquire_reason
FROM baton_leases
WHERE holder = ?
  AND (name, token) IN (/*pairs*/)
  AND expires_at > CAST(FLOOR(UNIX_TIMESTAMP(SYSDATE(6)) * 1000) AS SIGNED)
ORDER BY name
