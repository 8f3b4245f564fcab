SELECT name, holder, token, acquired_at, renewed_at, expires_at, ttl_ms, released
FROM baton_leases
WHERE name = ?1
