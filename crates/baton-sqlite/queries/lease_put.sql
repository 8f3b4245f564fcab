INSERT INTO baton_leases (name, holder, token, acquired_at, renewed_at, expires_at, ttl_ms, released)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
ON CONFLICT (name) DO UPDATE SET
    holder      = excluded.holder,
    token       = excluded.token,
    acquired_at = excluded.acquired_at,
    renewed_at  = excluded.renewed_at,
    expires_at  = excluded.expires_at,
    ttl_ms      = excluded.ttl_ms,
    released    = excluded.released
