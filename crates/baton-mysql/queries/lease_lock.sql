-- Locks one lease row and reads it with this server's time, taken after the lock is held
-- (SYSDATE(6): see now.sql).
--   ? lease name.
SELECT name, holder, token, acquired_at, renewed_at, expires_at, ttl_ms, released,
       acquire_reason, CAST(FLOOR(UNIX_TIMESTAMP(SYSDATE(6)) * 1000) AS SIGNED) AS now_ms
FROM baton_leases
WHERE name = ?
FOR UPDATE
