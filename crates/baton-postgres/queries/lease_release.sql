-- Releases a lease gracefully: compare-and-set on (name, holder, token), refused once the
-- lease has expired. The row keeps its token so the next acquisition only goes up. Waiters, when
-- a refused contender marked the lease as contended, are notified by the same statement;
-- PostgreSQL delivers the notification on commit. An uncontended release notifies nobody, so
-- that releases do not queue on the notification lock.
--   $1 lease name, $2 holder, $3 token.
WITH released AS (
    UPDATE baton_leases AS l
    SET holder = NULL,
        expires_at = clock.now_ms,
        released = 'graceful'
    FROM (SELECT baton_now_ms() AS now_ms) AS clock
    WHERE l.name = $1
      AND l.holder = $2
      AND l.token = $3
      AND l.expires_at > clock.now_ms
    RETURNING l.name, l.contended_until, clock.now_ms
)
SELECT r.name
FROM released AS r
LEFT JOIN LATERAL (
    SELECT pg_notify('baton_lease_released', r.name)
    WHERE r.contended_until > r.now_ms
) AS notified ON TRUE
