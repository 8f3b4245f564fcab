-- Stores the first grant of a lease name (the row is new; the token counter is locked).
--   ? name, holder, token, acquired_at, renewed_at, expires_at, ttl_ms, acquire_reason.
INSERT INTO baton_leases
    (name, holder, token, acquired_at, renewed_at, expires_at, ttl_ms, released, acquire_reason)
VALUES (?, ?, ?, ?, ?, ?, ?, NULL, ?)
