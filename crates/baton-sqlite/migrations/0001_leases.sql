-- Lease records, the token counter and the leader-change history.
-- Instants are INTEGER milliseconds since the Unix epoch on the host clock.

-- One row per lease name. The row outlives its holders: a release clears the holder and keeps
-- the last token.
CREATE TABLE baton_leases (
    name        TEXT    NOT NULL PRIMARY KEY,
    holder      TEXT,
    token       INTEGER NOT NULL CHECK (token > 0),
    acquired_at INTEGER NOT NULL,
    renewed_at  INTEGER NOT NULL,
    expires_at  INTEGER NOT NULL,
    ttl_ms      INTEGER NOT NULL CHECK (ttl_ms > 0),
    released    TEXT
) STRICT;

-- Monotonic counters. 'lease_token' is the last fencing token issued for any lease; it never
-- goes down, so deleting a lease row cannot make a token come back.
CREATE TABLE baton_counters (
    name  TEXT    NOT NULL PRIMARY KEY,
    value INTEGER NOT NULL CHECK (value >= 0)
) STRICT;

INSERT INTO baton_counters (name, value) VALUES ('lease_token', 0);

-- One row per acquisition (leader term start). AUTOINCREMENT keeps ids from being reused after
-- old rows are deleted, so keyset cursors stay valid.
CREATE TABLE baton_leader_changes (
    id     INTEGER PRIMARY KEY AUTOINCREMENT,
    lease  TEXT    NOT NULL,
    holder TEXT    NOT NULL,
    token  INTEGER NOT NULL CHECK (token > 0),
    at     INTEGER NOT NULL,
    reason TEXT    NOT NULL
) STRICT;

CREATE INDEX baton_leader_changes_by_lease ON baton_leader_changes (lease, id);
