-- Registered jobs: the schedule in storage form (see Schedule::from_parts), every policy field
-- in a column of its own, and the operator's controls. Instants are BIGINT milliseconds since
-- the Unix epoch read from this server's clock, durations BIGINT milliseconds, as for leases.
-- Rows are never deleted, so AUTO_INCREMENT ids never come round again and keyset cursors
-- stay valid.
CREATE TABLE IF NOT EXISTS baton_jobs (
    id                   BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
    name                 VARCHAR(200) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
    schedule_kind        VARCHAR(16) NOT NULL,
    schedule_expr        TEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
    schedule_zone        VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL,
    overlap              VARCHAR(16) NOT NULL,
    misfire              VARCHAR(16) NOT NULL,
    misfire_threshold_ms BIGINT NOT NULL,
    catch_up_window_ms   BIGINT NOT NULL,
    catch_up_max         BIGINT NOT NULL,
    starting_deadline_ms BIGINT NULL,
    jitter_ms            BIGINT NOT NULL,
    timeout_ms           BIGINT NULL,
    retry_max_attempts   BIGINT NOT NULL,
    retry_initial_ms     BIGINT NOT NULL,
    retry_max_ms         BIGINT NOT NULL,
    keep_succeeded       BIGINT NOT NULL,
    keep_failed          BIGINT NOT NULL,
    max_age_ms           BIGINT NOT NULL,
    paused               BOOLEAN NOT NULL DEFAULT FALSE,
    skip_through         BIGINT NULL,
    created_at           BIGINT NOT NULL,
    updated_at           BIGINT NOT NULL,
    UNIQUE KEY baton_jobs_by_name (name)
) ENGINE = InnoDB
