-- Job definitions and their executions (invariants I5, I6 and I8).
-- Instants are INTEGER milliseconds since the Unix epoch on the host clock; durations are
-- INTEGER milliseconds. Execution tokens come from the 'lease_token' counter of
-- baton_counters, so they never collide with lease tokens and only grow.

-- One row per registered job: its schedule in storage form (see Schedule::from_parts), every
-- policy field in a column of its own, and the operator's controls. AUTOINCREMENT keeps ids
-- from being reused, so keyset cursors stay valid.
CREATE TABLE baton_jobs (
    id                   INTEGER PRIMARY KEY AUTOINCREMENT,
    name                 TEXT    NOT NULL UNIQUE,
    schedule_kind        TEXT    NOT NULL CHECK (schedule_kind IN ('cron', 'every', 'once')),
    schedule_expr        TEXT    NOT NULL,
    schedule_zone        TEXT,
    overlap              TEXT    NOT NULL,
    misfire              TEXT    NOT NULL,
    misfire_threshold_ms INTEGER NOT NULL CHECK (misfire_threshold_ms >= 0),
    catch_up_window_ms   INTEGER NOT NULL CHECK (catch_up_window_ms >= 0),
    catch_up_max         INTEGER NOT NULL CHECK (catch_up_max >= 0),
    starting_deadline_ms INTEGER CHECK (starting_deadline_ms >= 0),
    jitter_ms            INTEGER NOT NULL CHECK (jitter_ms >= 0),
    timeout_ms           INTEGER CHECK (timeout_ms >= 0),
    retry_max_attempts   INTEGER NOT NULL CHECK (retry_max_attempts >= 0),
    retry_initial_ms     INTEGER NOT NULL CHECK (retry_initial_ms >= 0),
    retry_max_ms         INTEGER NOT NULL CHECK (retry_max_ms >= 0),
    keep_succeeded       INTEGER NOT NULL CHECK (keep_succeeded >= 0),
    keep_failed          INTEGER NOT NULL CHECK (keep_failed >= 0),
    max_age_ms           INTEGER NOT NULL CHECK (max_age_ms >= 0),
    paused               INTEGER NOT NULL DEFAULT 0 CHECK (paused IN (0, 1)),
    skip_through         INTEGER,
    created_at           INTEGER NOT NULL,
    updated_at           INTEGER NOT NULL
) STRICT;

-- One row per attempt of a fire. (job, fire_key, attempt) is the fire's identity plus the
-- attempt: a fire is recorded at most once however many leaders record it. `job` is the job's
-- name, so records outlive a job's definition.
CREATE TABLE baton_executions (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    job              TEXT    NOT NULL,
    fire_key         TEXT    NOT NULL,
    scheduled_at     INTEGER NOT NULL,
    attempt          INTEGER NOT NULL CHECK (attempt >= 1),
    "trigger"        TEXT    NOT NULL
        CHECK ("trigger" IN ('schedule', 'manual', 'retry', 'external')),
    status           TEXT    NOT NULL
        CHECK (status IN ('scheduled', 'running', 'succeeded', 'failed', 'timed_out',
                          'abandoned', 'skipped', 'missed', 'cancelled')),
    due_at           INTEGER NOT NULL,
    node             TEXT,
    token            INTEGER CHECK (token > 0),
    created_at       INTEGER NOT NULL,
    started_at       INTEGER,
    heartbeat_at     INTEGER,
    finished_at      INTEGER,
    detail           TEXT,
    covers_through   INTEGER,
    covers_count     INTEGER NOT NULL DEFAULT 1 CHECK (covers_count >= 1),
    cancel_requested INTEGER NOT NULL DEFAULT 0 CHECK (cancel_requested IN (0, 1)),
    UNIQUE (job, fire_key, attempt),
    CHECK (status <> 'running' OR (node IS NOT NULL AND token IS NOT NULL))
) STRICT;

-- Claiming (due scheduled executions, earliest first) and the earliest due instant.
CREATE INDEX baton_executions_due ON baton_executions (status, due_at);
-- Per-job lookups: the running and the waiting executions of a job.
CREATE INDEX baton_executions_job_status ON baton_executions (job, status);
-- Per-job history by scheduled instant: the last fire, retention, listings of one job.
CREATE INDEX baton_executions_job_scheduled ON baton_executions (job, scheduled_at);
