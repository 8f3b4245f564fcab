-- Each writer appends to one resource, fenced on its own.
CREATE TABLE IF NOT EXISTS baton_test_ledger (
    seq BIGSERIAL PRIMARY KEY,
    resource TEXT NOT NULL,
    writer TEXT NOT NULL,
    token BIGINT NOT NULL,
    -- How long (µs) the writer's claim still had when the entry was written; NULL when the
    -- write was not checked against a claim (a deliberate stale write, or a job's).
    margin_us BIGINT
);
CREATE TABLE IF NOT EXISTS baton_test_ledger_rejections (
    seq BIGSERIAL PRIMARY KEY,
    resource TEXT NOT NULL,
    writer TEXT NOT NULL,
    token BIGINT NOT NULL
);
