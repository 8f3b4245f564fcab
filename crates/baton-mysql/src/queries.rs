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
    /// The missed runs of the listed jobs that reach an instant.
    EXECUTION_COVERING = "execution_covering.sql";
    /// The missed runs that no schedule record accounts for yet.
    EXECUTION_MISSED_UNCOVERED = "execution_missed_uncovered.sql";
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
    /// The earliest due instant of any job.
    EXECUTION_NEXT_DUE_ANY = "execution_next_due_any.sql";
    /// Record a node's heartbeat.
    EXECUTION_HEARTBEAT = "execution_heartbeat.sql";
    /// The executions a heartbeat reached.
    EXECUTION_BEATEN = "execution_beaten.sql";
    /// Finish a running execution (compare-and-set).
    EXECUTION_COMPLETE = "execution_complete.sql";
    /// Lock the listed executions that still run.
    EXECUTION_LOCK_RUNNING = "execution_lock_running.sql";
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
}

// The cluster store's statements.
queries! {
    /// Lock and read one node record.
    NODE_LOCK = "node_lock.sql";
    /// Read one node record, held in share mode.
    NODE_SHARE = "node_share.sql";
    /// Store a node's first registration.
    NODE_INSERT = "node_insert.sql";
    /// Rewrite a node record as a new incarnation.
    NODE_REPLACE = "node_replace.sql";
    /// Stamp a node's heartbeat.
    NODE_BEAT = "node_beat.sql";
    /// Mark a node as left.
    NODE_LEAVE = "node_leave.sql";
    /// The active nodes with their load.
    NODE_LIVE = "node_live.sql";
    /// The state and token of listed nodes.
    NODE_STATES = "node_states.sql";
    /// The nodes a sweep judges.
    NODE_SWEEP_CANDIDATES = "node_sweep_candidates.sql";
    /// Lock the nodes a sweep moves.
    NODE_SWEEP_LOCK = "node_sweep_lock.sql";
    /// Move locked nodes to one state.
    NODE_SET_STATE = "node_set_state.sql";
    /// One page of nodes.
    NODE_LIST = "node_list.sql";
    /// Record node state changes.
    NODE_CHANGES_INSERT = "node_changes_insert.sql";
    /// Read back the changes just recorded.
    NODE_CHANGES_RECORDED = "node_changes_recorded.sql";
    /// One page of every node's changes.
    NODE_CHANGES_ALL = "node_changes_all.sql";
    /// One page of one node's changes.
    NODE_CHANGES_OF_NODE = "node_changes_of_node.sql";
    /// Create a running batch.
    BATCH_INSERT = "batch_insert.sql";
    /// Read one batch.
    BATCH_GET = "batch_get.sql";
    /// Lock and read one batch.
    BATCH_LOCK = "batch_lock.sql";
    /// One page of batches.
    BATCH_LIST = "batch_list.sql";
    /// Count a batch's unfinished and failed partitions.
    BATCH_TALLY = "batch_tally.sql";
    /// A batch's first failed partitions.
    BATCH_FIRST_FAILED = "batch_first_failed.sql";
    /// Finish a batch.
    BATCH_FINISH = "batch_finish.sql";
    /// The strategies of listed batches.
    BATCH_STRATEGIES = "batch_strategies.sql";
    /// The running batches of listed jobs.
    BATCH_RUNNING_OF_JOBS = "batch_running_of_jobs.sql";
    /// Create pending partitions.
    PARTITION_INSERT = "partition_insert.sql";
    /// Lock claimable partitions of one node or of none.
    PARTITION_CLAIMABLE = "partition_claimable.sql";
    /// Claim locked partitions.
    PARTITION_CLAIM = "partition_claim.sql";
    /// Read listed partitions.
    PARTITION_READ = "partition_read.sql";
    /// Save a checkpoint (compare-and-set).
    PARTITION_CHECKPOINT = "partition_checkpoint.sql";
    /// Complete a partition (compare-and-set).
    PARTITION_COMPLETE = "partition_complete.sql";
    /// Fail a partition (compare-and-set).
    PARTITION_FAIL = "partition_fail.sql";
    /// Lock the listed partitions a node holds.
    PARTITION_HELD = "partition_held.sql";
    /// Stamp held partitions' heartbeats.
    PARTITION_BEAT = "partition_beat.sql";
    /// Lock a node's partitions in two states.
    PARTITION_OF_NODE = "partition_of_node.sql";
    /// Find partitions whose node is gone.
    PARTITION_ORPHANS = "partition_orphans.sql";
    /// Lock orphan candidates.
    PARTITION_LOCK_ORPHANS = "partition_lock_orphans.sql";
    /// Put partitions back to pending.
    PARTITION_REQUEUE = "partition_requeue.sql";
    /// Fail partitions that could not move.
    PARTITION_FAIL_ORPHANS = "partition_fail_orphans.sql";
    /// One page of a batch's partitions.
    PARTITION_LIST = "partition_list.sql";
    /// Lock a node's pending partitions of one batch.
    PARTITION_PENDING_OF = "partition_pending_of.sql";
    /// Assign locked pending partitions to another node under new tokens.
    PARTITION_MOVE = "partition_move.sql";
    /// Record moves of partitions.
    PARTITION_MOVES_INSERT = "partition_moves_insert.sql";
    /// One page of a batch's moves.
    PARTITION_MOVES = "partition_moves.sql";
    /// Issue the cluster's next tokens.
    CLUSTER_TOKENS_DRAW = "cluster_tokens_draw.sql";
}

queries! {
    /// Count one wake-up of a channel.
    WAKEUP_RAISE = "wakeup_raise.sql";
    /// Read a channel's wake-up count.
    WAKEUP_COUNT = "wakeup_count.sql";
    /// Wait for a channel's next wake-up.
    WAKEUP_WAIT = "wakeup_wait.sql";
    /// Ring a channel, or try to keep its lock.
    WAKEUP_RING = "wakeup_ring.sql";
}

/// `statement` with its `/*pairs*/` marker replaced by `count` placeholder pairs.
pub(crate) fn with_pairs(statement: &str, count: usize) -> String {
    let pairs = vec!["(?, ?)"; count].join(", ");
    statement.replace("/*pairs*/", &pairs)
}

/// `statement` with its `/*list*/` marker replaced by `count` placeholders, or by `NULL` (which
/// matches nothing) when `count` is zero.
pub(crate) fn with_list(statement: &str, count: usize) -> String {
    match count {
        0 => statement.replace("/*list*/", "NULL"),
        _ => expand(statement, "/*list*/", "?", ", ", count),
    }
}

/// `statement`'s SELECT (without its comment lines) `count` times, joined by `UNION ALL`: one
/// index range per listed job where a single statement over all of them would read them all.
pub(crate) fn union_all(statement: &str, count: usize) -> String {
    let select: Vec<&str> =
        statement.lines().filter(|line| !line.trim_start().starts_with("--")).collect();
    vec![select.join("\n"); count].join("\nUNION ALL\n")
}

/// `statement` with `marker` replaced by `count` copies of `item`, joined by `separator`: the
/// placeholders of a list (`"?"`, `", "`), of `CASE` arms (`"WHEN ? THEN ?"`, `" "`) or of rows.
pub(crate) fn expand(
    statement: &str,
    marker: &str,
    item: &str,
    separator: &str,
    count: usize,
) -> String {
    statement.replace(marker, &vec![item; count].join(separator))
}
