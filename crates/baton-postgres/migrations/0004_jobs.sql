-- Jobs and their executions. Every instant is a BIGINT count of milliseconds since the Unix
-- epoch on this server's clock (baton_now_ms()); durations are BIGINT milliseconds. Execution
-- tokens come from baton_fencing_tokens, the sequence the leases draw from, so they only grow.

CREATE TABLE baton_jobs (
    id                   BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name                 TEXT COLLATE "C" NOT NULL UNIQUE,
    schedule_kind        TEXT NOT NULL CHECK (schedule_kind IN ('cron', 'every', 'once')),
    schedule_expr        TEXT NOT NULL,
    schedule_zone        TEXT,
    overlap              TEXT NOT NULL
        CHECK (overlap IN ('allow', 'forbid', 'replace', 'buffer-one')),
    misfire              TEXT NOT NULL CHECK (misfire IN ('skip', 'run-latest', 'run-all')),
    misfire_threshold_ms BIGINT NOT NULL CHECK (misfire_threshold_ms >= 0),
    catch_up_window_ms   BIGINT NOT NULL CHECK (catch_up_window_ms >= 0),
    catch_up_max         BIGINT NOT NULL CHECK (catch_up_max >= 0),
    starting_deadline_ms BIGINT CHECK (starting_deadline_ms >= 0),
    jitter_ms            BIGINT NOT NULL CHECK (jitter_ms >= 0),
    timeout_ms           BIGINT CHECK (timeout_ms >= 0),
    retry_max_attempts   BIGINT NOT NULL CHECK (retry_max_attempts >= 0),
    retry_initial_ms     BIGINT NOT NULL CHECK (retry_initial_ms >= 0),
    retry_max_ms         BIGINT NOT NULL CHECK (retry_max_ms >= 0),
    keep_succeeded       BIGINT NOT NULL CHECK (keep_succeeded >= 0),
    keep_failed          BIGINT NOT NULL CHECK (keep_failed >= 0),
    max_age_ms           BIGINT NOT NULL CHECK (max_age_ms >= 0),
    paused               BOOLEAN NOT NULL DEFAULT FALSE,
    skip_through         BIGINT,
    -- The execution of this job a claim started and that still runs, kept for jobs whose
    -- overlap is not 'allow'. Claims lock the job row before reading it, and every path that
    -- ends that execution clears it, so two claimers can never both see the job idle.
    running_execution    BIGINT,
    created_at           BIGINT NOT NULL,
    updated_at           BIGINT NOT NULL
);

-- Renders an instant as StoreTime prints it: RFC 3339, UTC, milliseconds.
CREATE FUNCTION baton_instant_text(ms BIGINT) RETURNS TEXT
    LANGUAGE sql STABLE PARALLEL SAFE
    AS $$
        SELECT to_char(TIMESTAMP '1970-01-01 00:00:00' + ms * INTERVAL '1 millisecond',
                       'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
    $$;

-- Renders a duration in milliseconds as seconds with one decimal ('30.0s'), as the claim
-- rules word their reasons.
CREATE FUNCTION baton_seconds_text(ms BIGINT) RETURNS TEXT
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$ SELECT round(ms / 1000.0, 1)::TEXT || 's' $$;

CREATE TABLE baton_executions (
    id               BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    job              TEXT COLLATE "C" NOT NULL,
    fire_key         TEXT COLLATE "C" NOT NULL,
    scheduled_at     BIGINT NOT NULL,
    attempt          BIGINT NOT NULL CHECK (attempt >= 1),
    trigger          TEXT NOT NULL CHECK (trigger IN ('schedule', 'manual', 'retry', 'external')),
    status           TEXT NOT NULL CHECK (status IN (
        'scheduled', 'running', 'succeeded', 'failed', 'timed_out', 'abandoned', 'skipped',
        'missed', 'cancelled')),
    due_at           BIGINT NOT NULL,
    node             TEXT,
    token            BIGINT CHECK (token > 0),
    created_at       BIGINT NOT NULL,
    started_at       BIGINT,
    heartbeat_at     BIGINT,
    finished_at      BIGINT,
    detail           TEXT,
    covers_through   BIGINT,
    covers_count     BIGINT NOT NULL DEFAULT 1 CHECK (covers_count >= 1),
    cancel_requested BOOLEAN NOT NULL DEFAULT FALSE,
    UNIQUE (job, fire_key, attempt),
    -- A live execution is one that has not finished; a running one is a live one with a
    -- token. Statements that find an execution by id test these columns rather than the
    -- status, so that the planner never reaches it through the partial indexes below.
    CHECK ((status IN ('scheduled', 'running')) = (finished_at IS NULL)),
    CHECK ((status = 'running') = (token IS NOT NULL AND finished_at IS NULL)),
    CHECK (status <> 'running' OR node IS NOT NULL)
);

-- What the workers claim, oldest due first; also answers next_due.
CREATE INDEX baton_executions_due ON baton_executions (due_at, id) WHERE status = 'scheduled';
-- The live executions by status and job: a job's waiting and running ones for the claim's
-- overlap rules, every running one for rescue. Final rows stay out of it, so completing an
-- execution writes one index entry fewer.
CREATE INDEX baton_executions_live ON baton_executions (status, job, id)
    WHERE status IN ('scheduled', 'running');
-- A job's history by scheduled instant: listings, retention, the last fires.
CREATE INDEX baton_executions_by_job_time ON baton_executions (job, scheduled_at);

-- A queue table: statistics must follow bursts of fires and claims closely, or the planner
-- misjudges how many executions are due.
ALTER TABLE baton_executions SET (
    autovacuum_vacuum_scale_factor = 0.02,
    autovacuum_analyze_scale_factor = 0.02
);
