//! Every SQL statement of this backend, one file each under `queries/`.

macro_rules! queries {
    ($($(#[$doc:meta])* $name:ident = $file:literal;)*) => {
        $(
            $(#[$doc])*
            pub(crate) const $name: &str = include_str!(concat!("../queries/", $file));
        )*
    };
}

queries! {
    /// The server's time.
    NOW = "now.sql";
    /// Issue the next token of a name, locking its counter.
    TOKEN_NEXT = "token_next.sql";
    /// Lock and read one lease row with the server's time.
    LEASE_LOCK = "lease_lock.sql";
    /// Store the first grant of a name.
    LEASE_INSERT = "lease_insert.sql";
    /// Store a grant over a free row.
    LEASE_TAKE = "lease_take.sql";
    /// Record a grant in the history.
    LEADER_CHANGE_INSERT = "leader_change_insert.sql";
    /// Renew one lease (compare-and-set).
    LEASE_RENEW = "lease_renew.sql";
    /// Renew every listed lease of a holder.
    LEASE_RENEW_ALL = "lease_renew_all.sql";
    /// The listed leases a holder holds now.
    LEASE_HELD = "lease_held.sql";
    /// Release a lease gracefully (compare-and-set).
    LEASE_RELEASE = "lease_release.sql";
    /// Free a locked lease by force.
    LEASE_FORCE_RELEASE = "lease_force_release.sql";
    /// Read one lease row with the server's time.
    LEASE_GET = "lease_get.sql";
    /// Read every lease row by name.
    LEASE_LIST = "lease_list.sql";
    /// One page of the history of every lease.
    HISTORY_ALL = "history_all.sql";
    /// One page of the history of one lease.
    HISTORY_OF_LEASE = "history_of_lease.sql";
    /// Raise a fence (or create it).
    FENCE_RAISE = "fence_raise.sql";
    /// Read a fence's token.
    FENCE_CURRENT = "fence_current.sql";
    /// Take a lease's doorbell.
    BELL_TAKE = "bell_take.sql";
    /// Ring a lease's doorbell.
    BELL_RING = "bell_ring.sql";
    /// Wait for a lease's doorbell.
    BELL_WAIT = "bell_wait.sql";
}

queries! {
    /// Register or redefine a job.
    JOB_UPSERT = "job_upsert.sql";
    /// Read one job.
    JOB_GET = "job_get.sql";
    /// One page of jobs.
    JOB_LIST = "job_list.sql";
    /// Lock the listed jobs, exclusively.
    JOB_LOCK = "job_lock.sql";
    /// Read the listed jobs.
    JOB_NAMED = "job_named.sql";
    /// Lock the listed jobs in share mode.
    JOB_LOCK_SHARED = "job_lock_shared.sql";
    /// Pause or resume a job.
    JOB_SET_PAUSED = "job_set_paused.sql";
    /// Skip a job's fires up to an instant.
    JOB_SKIP_THROUGH = "job_skip_through.sql";
    /// Where each job's fires stopped.
    JOB_LAST_FIRES = "job_last_fires.sql";
    /// How far retention pruned each job.
    JOB_PRUNED_THROUGH = "job_pruned_through.sql";
    /// Raise a job's pruned watermark.
    JOB_PRUNED_RAISE = "job_pruned_raise.sql";
    /// Record a batch of fires.
    EXECUTION_FIRES_INSERT = "execution_fires_insert.sql";
    /// Record a batch of missed runs.
    EXECUTION_MISSED_INSERT = "execution_missed_insert.sql";
    /// Lock the latest attempt of a fire.
    EXECUTION_LATEST_ATTEMPT = "execution_latest_attempt.sql";
    /// Record one execution outside the schedule.
    EXECUTION_INSERT = "execution_insert.sql";
    /// Record a retry.
    EXECUTION_RETRY_INSERT = "execution_retry_insert.sql";
    /// Read one execution.
    EXECUTION_GET = "execution_get.sql";
    /// Read the listed executions.
    EXECUTION_BY_IDS = "execution_by_ids.sql";
    /// One page of executions.
    EXECUTION_LIST = "execution_list.sql";
    /// One page of one job's executions.
    EXECUTION_LIST_OF_JOB = "execution_list_of_job.sql";
    /// Lock due executions for a claim.
    EXECUTION_DUE = "execution_due.sql";
    /// Each job's running execution with the lowest id.
    EXECUTION_FIRST_RUNNING = "execution_first_running.sql";
    /// Each job's earliest waiting executions.
    EXECUTION_FIRST_WAITING = "execution_first_waiting.sql";
    /// Start claimed executions.
    EXECUTION_CLAIM_RUN = "execution_claim_run.sql";
    /// Settle claimed executions without running them.
    EXECUTION_CLAIM_SETTLE = "execution_claim_settle.sql";
    /// Ask running executions to stop (overlap replace).
    EXECUTION_CLAIM_CANCEL = "execution_claim_cancel.sql";
    /// The earliest due instant, with the server's time.
    EXECUTION_NEXT_DUE = "execution_next_due.sql";
    /// Record a node's heartbeat.
    EXECUTION_HEARTBEAT = "execution_heartbeat.sql";
    /// The executions a heartbeat reached.
    EXECUTION_BEATEN = "execution_beaten.sql";
    /// Finish a running execution (compare-and-set).
    EXECUTION_COMPLETE = "execution_complete.sql";
    /// Keep an execution's output.
    EXECUTION_OUTPUT_INSERT = "execution_output_insert.sql";
    /// Read an execution's output.
    EXECUTION_OUTPUT_GET = "execution_output_get.sql";
    /// Ask an execution to stop.
    EXECUTION_REQUEST_CANCEL = "execution_request_cancel.sql";
    /// Lock running executions whose heartbeat is stale.
    EXECUTION_STALE = "execution_stale.sql";
    /// Mark executions abandoned.
    EXECUTION_ABANDON = "execution_abandon.sql";
    /// The oldest heartbeat of the running executions.
    EXECUTION_OLDEST_HEARTBEAT = "execution_oldest_heartbeat.sql";
    /// Whether a job that is not `allow` has a due execution waiting.
    EXECUTION_WAITING_ON_OVERLAP = "execution_waiting_on_overlap.sql";
    /// The executions retention no longer keeps.
    EXECUTION_PRUNABLE = "execution_prunable.sql";
    /// Delete the listed executions.
    EXECUTION_DELETE = "execution_delete.sql";
    /// Issue execution tokens.
    EXECUTION_TOKEN_ISSUE = "execution_token_issue.sql";
    /// Record an operator action.
    ACTION_INSERT = "action_insert.sql";
    /// One page of the action log.
    ACTION_LIST = "action_list.sql";
    /// Which generation of the due doorbell is kept.
    DUE_BELL_GENERATION = "due_bell_generation.sql";
    /// Start keeping the due doorbell.
    DUE_BELL_KEEP = "due_bell_keep.sql";
    /// Ring the due doorbell.
    DUE_BELL_RING = "due_bell_ring.sql";
    /// Wait for the due doorbell.
    DUE_BELL_WAIT = "due_bell_wait.sql";
}

/// `statement` with its `/*list*/` marker replaced by `count` placeholders, or by `NULL` (which
/// matches nothing) when `count` is zero.
pub(crate) fn with_list(statement: &str, count: usize) -> String {
    let list = if count == 0 { "NULL".to_string() } else { vec!["?"; count].join(", ") };
    statement.replace("/*list*/", &list)
}

/// `statement` with its `/*pairs*/` marker replaced by `count` placeholder pairs.
pub(crate) fn with_pairs(statement: &str, count: usize) -> String {
    let pairs = vec!["(?, ?)"; count].join(", ");
    statement.replace("/*pairs*/", &pairs)
}
