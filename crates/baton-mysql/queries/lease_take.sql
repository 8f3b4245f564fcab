-- Stores a grant over a locked lease row that was free at this transaction's time.
--   ? holder, token, acquired_at, renewed_at, expires_at, ttl_ms, acquire_reason, name.
UPDATE baton_leases
SET holder = ?, token = ?, acquired_at = ?, renewed_at = ?, expires_at = ?, ttl_ms = ?,
    released = NULL, acquire_reason = ?
WHERE name = ?
