-- Reads every lease row, ordered by name (byte order: the column collates as utf8mb4_bin).
SELECT name, holder, token, acquired_at, renewed_at, expires_at, ttl_ms, released,
       acquire_reason
FROM baton_leases
ORDER BY name
