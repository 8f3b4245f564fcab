-- Leases. Every instant is a BIGINT count of milliseconds since the Unix epoch read from this
-- server's clock, so expiry never depends on a client's clock (and never meets TIMESTAMP's 2038).
CREATE TABLE IF NOT EXISTS baton_leases (
    name           VARCHAR(200) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL PRIMARY KEY,
    holder         VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL,
    token          BIGINT NOT NULL,
    acquired_at    BIGINT NOT NULL,
    renewed_at     BIGINT NOT NULL,
    expires_at     BIGINT NOT NULL,
    ttl_ms         BIGINT NOT NULL,
    released       VARCHAR(16) NULL,
    acquire_reason VARCHAR(32) NOT NULL
) ENGINE = InnoDB
