-- Acquires a lease in one statement and one commit.
--   $1 lease name, $2 holder, $3 TTL in milliseconds.
-- A missing row is inserted (reason 'fresh'); an existing row is taken over only when it was
-- released or has expired on this server's clock, the reason following from the old row. The
-- token is drawn from the sequence inside SET, that is after the row is locked, so it is greater
-- than the token of every acquisition committed before. Each grant is recorded in the
-- leader-change history by the same statement, with the end of the previous term read from the
-- locked row: the release when it was released, else the previous holder's last renewal. A refused caller marks the row as contended
-- until the lease's expiry plus the caller's TTL, so that the holder's release notifies it (a
-- waiter asks again by the expiry at the latest).
-- Answers one row: the granted lease (granted = TRUE), or the current row as of this
-- statement's snapshot (granted = FALSE), which can be stale or missing when a concurrent
-- acquisition committed meanwhile; the caller then reads the row again.
WITH clock AS (
    SELECT baton_now_ms() AS now_ms
),
granted AS (
    INSERT INTO baton_leases AS l
        (name, holder, token, acquired_at, renewed_at, expires_at, ttl_ms, released,
         acquire_reason, previous_end)
    SELECT $1::TEXT, $2::TEXT, nextval('baton_fencing_tokens'), clock.now_ms, clock.now_ms,
           clock.now_ms + $3::BIGINT, $3::BIGINT, NULL, 'fresh', NULL
    FROM clock
    ON CONFLICT (name) DO UPDATE SET
        holder = excluded.holder,
        token = nextval('baton_fencing_tokens'),
        acquired_at = excluded.acquired_at,
        renewed_at = excluded.renewed_at,
        expires_at = excluded.expires_at,
        ttl_ms = excluded.ttl_ms,
        released = NULL,
        acquire_reason = CASE l.released
            WHEN 'graceful' THEN 'handover'
            WHEN 'forced' THEN 'forced_release'
            ELSE 'expired_takeover'
        END,
        previous_end = CASE WHEN l.released IS NULL THEN l.renewed_at ELSE l.expires_at END
    WHERE l.holder IS NULL OR l.expires_at <= excluded.acquired_at
    RETURNING l.name, l.holder, l.token, l.acquired_at, l.renewed_at, l.expires_at, l.ttl_ms,
              l.released, l.acquire_reason, l.previous_end
),
contended AS (
    UPDATE baton_leases AS c
    SET contended_until = GREATEST(c.contended_until, GREATEST(c.expires_at, clock.now_ms) + $3::BIGINT)
    FROM clock
    WHERE c.name = $1::TEXT AND NOT EXISTS (SELECT 1 FROM granted)
),
recorded AS (
    INSERT INTO baton_leader_changes (lease, holder, token, changed_at, reason, previous_end)
    SELECT g.name, g.holder, g.token, g.acquired_at, g.acquire_reason, g.previous_end
    FROM granted AS g
)
SELECT g.name, g.holder, g.token, g.acquired_at, g.renewed_at, g.expires_at, g.ttl_ms,
       g.released, g.acquire_reason, TRUE AS granted, clock.now_ms
FROM granted AS g, clock
UNION ALL
SELECT c.name, c.holder, c.token, c.acquired_at, c.renewed_at, c.expires_at, c.ttl_ms,
       c.released, c.acquire_reason, FALSE AS granted, clock.now_ms
FROM baton_leases AS c, clock
WHERE c.name = $1::TEXT AND NOT EXISTS (SELECT 1 FROM granted)
