-- One row per attempt of a fire (invariants I5, I6, I8). (job, fire_key, attempt) is the
-- fire's identity plus the attempt, so a fire is recorded at most once however many leaders
-- record it. `job` is the job's name, so records outlive a job's definition. Tokens are
-- issued from the counter row 'baton execution tokens' of baton_fencing_tokens (a name no
-- lease can have: lease names hold no spaces), never from AUTO_INCREMENT. Ids are only
-- listing cursors; InnoDB keeps the AUTO_INCREMENT counter across restarts (MariaDB 10.2.4+,
-- MySQL 8.0), so they do not come round again after a prune.
CREATE TABLE IF NOT EXISTS baton_executions (
    id               BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
    job              VARCHAR(200) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
    fire_key         VARCHAR(200) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
    scheduled_at     BIGINT NOT NULL,
    attempt          INT NOT NULL,
    `trigger`        VARCHAR(16) NOT NULL,
    status           VARCHAR(16) NOT NULL,
    due_at           BIGINT NOT NULL,
    node             VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL,
    token            BIGINT NULL,
    created_at       BIGINT NOT NULL,
    started_at       BIGINT NULL,
    heartbeat_at     BIGINT NULL,
    finished_at      BIGINT NULL,
    detail           MEDIUMTEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL,
    covers_through   BIGINT NULL,
    covers_count     BIGINT NOT NULL DEFAULT 1,
    cancel_requested BOOLEAN NOT NULL DEFAULT FALSE,
    UNIQUE KEY baton_executions_fire (job, fire_key, attempt),
    -- Claims walk the due executions in (due_at, id) order; the earliest due instant.
    KEY baton_executions_due (status, due_at, id),
    -- Per-job lookups: the running and the waiting executions of a job.
    KEY baton_executions_job_status (job, status, id),
    -- Per-job history by instant: the last fire, retention.
    KEY baton_executions_job_scheduled (job, scheduled_at),
    -- The missed runs of a job that reach an instant (covers_through >= it): only rows that
    -- cover a range have covers_through, so recording a fire reads those, not the job's history.
    KEY baton_executions_job_covers (job, covers_through),
    -- Rescue: the running executions with the oldest heartbeats.
    KEY baton_executions_heartbeat (status, heartbeat_at)
) ENGINE = InnoDB
