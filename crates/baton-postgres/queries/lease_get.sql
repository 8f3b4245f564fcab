-- Reads one lease row and this server's current time.
--   $1 lease name.
SELECT name, holder, token, acquired_at, renewed_at, expires_at, ttl_ms, released,
       acquire_reason, baton_now_ms() AS now_ms
FROM baton_leases
WHERE name = $1
