CREATE TABLE IF NOT EXISTS baton_test_ledger (
    seq BIGSERIAL PRIMARY KEY,
    writer TEXT NOT NULL,
    token BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS baton_test_ledger_rejections (
    seq BIGSERIAL PRIMARY KEY,
    writer TEXT NOT NULL,
    token BIGINT NOT NULL
);
