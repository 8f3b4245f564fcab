-- Reads one lease row and this server's current time.
--   ? lease name.
SELECT name, holder, token, acquired_at, renewed_at, expires_at, ttl_ms, released,
       acquire_reason, CAST(FLOOR(UNIX_TIMESTAMP(SYSDATE(6)) * 1000) AS SIGNED) AS now_ms
FROM baton_leases
WHERE name = ?
