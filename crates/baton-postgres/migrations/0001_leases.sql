-- Leases with fencing tokens. Every instant is a BIGINT count of milliseconds since the Unix
-- epoch read from this server's clock, so expiry never depends on a client's clock.

CREATE FUNCTION baton_now_ms() RETURNS BIGINT
    LANGUAGE sql STABLE PARALLEL SAFE
    AS $$ SELECT floor(extract(epoch FROM now()) * 1000)::BIGINT $$;

-- Tokens come from one sequence, never from the lease row, so deleting a row cannot make a
-- token come round again. CACHE 1 keeps the values in issue order across sessions.
CREATE SEQUENCE baton_fencing_tokens AS BIGINT MINVALUE 1 START WITH 1 CACHE 1 NO CYCLE;

CREATE TABLE baton_leases (
    name           TEXT COLLATE "C" PRIMARY KEY,
    holder         TEXT,
    token          BIGINT NOT NULL CHECK (token > 0),
    acquired_at    BIGINT NOT NULL,
    renewed_at     BIGINT NOT NULL,
    expires_at     BIGINT NOT NULL,
    ttl_ms         BIGINT NOT NULL CHECK (ttl_ms > 0),
    released       TEXT CHECK (released IN ('graceful', 'forced')),
    acquire_reason TEXT NOT NULL
        CHECK (acquire_reason IN ('fresh', 'expired_takeover', 'handover', 'forced_release')),
    CHECK (holder IS NOT NULL OR released IS NOT NULL)
);

CREATE TABLE baton_leader_changes (
    id         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    lease      TEXT COLLATE "C" NOT NULL,
    holder     TEXT NOT NULL,
    token      BIGINT NOT NULL,
    changed_at BIGINT NOT NULL,
    reason     TEXT NOT NULL
        CHECK (reason IN ('fresh', 'expired_takeover', 'handover', 'forced_release'))
);

CREATE INDEX baton_leader_changes_by_lease ON baton_leader_changes (lease, id);
