-- Extends one lease by its stored TTL: compare-and-set on (name, holder, token), refused once
-- the lease has expired on this server's clock. No row answered means the lease is lost.
--   $1 lease name, $2 holder, $3 token.
UPDATE baton_leases AS l
SET renewed_at = clock.now_ms,
    expires_at = clock.now_ms + l.ttl_ms
FROM (SELECT baton_now_ms() AS now_ms) AS clock
WHERE l.name = $1
  AND l.holder = $2
  AND l.token = $3
  AND l.expires_at > clock.now_ms
RETURNING l.name, l.holder, l.token, l.acquired_at, l.renewed_at, l.expires_at, l.ttl_ms,
          l.released, l.acquire_reason
