-- Frees a lease whoever holds it (an operator's action) and answers the row as it was.
-- The row is locked first so that the answer is its latest version; nothing is answered when
-- the lease was not held at this server's time. Waiters are notified on commit.
--   $1 lease name.
WITH clock AS (
    SELECT baton_now_ms() AS now_ms
),
previous AS (
    SELECT p.name, p.holder, p.token, p.acquired_at, p.renewed_at, p.expires_at, p.ttl_ms,
           p.released, p.acquire_reason
    FROM baton_leases AS p
    WHERE p.name = $1
    FOR UPDATE
),
released AS (
    UPDATE baton_leases AS l
    SET holder = NULL,
        expires_at = clock.now_ms,
        released = 'forced'
    FROM previous AS p, clock
    WHERE l.name = p.name
      AND p.holder IS NOT NULL
      AND p.expires_at > clock.now_ms
    RETURNING p.name, p.holder, p.token, p.acquired_at, p.renewed_at, p.expires_at, p.ttl_ms,
              p.released, p.acquire_reason
)
SELECT r.name, r.holder, r.token, r.acquired_at, r.renewed_at, r.expires_at, r.ttl_ms,
       r.released, r.acquire_reason
FROM released AS r
CROSS JOIN LATERAL (SELECT pg_notify('baton_lease_released', r.name)) AS notified
