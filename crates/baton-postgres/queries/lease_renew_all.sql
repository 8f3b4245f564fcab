-- Extends every listed lease of one holder, each by its own stored TTL, in one statement.
-- Leases not answered are lost (released, expired on this server's clock, or taken over).
--   $1 holder, $2 lease names, $3 tokens (same length as $2, pairwise).
UPDATE baton_leases AS l
SET renewed_at = clock.now_ms,
    expires_at = clock.now_ms + l.ttl_ms
FROM (SELECT baton_now_ms() AS now_ms) AS clock,
     unnest($2::TEXT[], $3::BIGINT[]) AS wanted (name, token)
WHERE l.name = wanted.name
  AND l.token = wanted.token
  AND l.holder = $1
  AND l.expires_at > clock.now_ms
RETURNING l.name, l.holder, l.token, l.acquired_at, l.renewed_at, l.expires_at, l.ttl_ms,
          l.released, l.acquire_reason
