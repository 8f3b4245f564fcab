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
    /// Acquire a lease, record the leader change, answer the grant or the current row.
    LEASE_ACQUIRE = "lease_acquire.sql";
    /// Read one lease row with the server's time.
    LEASE_GET = "lease_get.sql";
    /// Read every lease row by name.
    LEASE_LIST = "lease_list.sql";
    /// Renew one lease (compare-and-set).
    LEASE_RENEW = "lease_renew.sql";
    /// Renew every listed lease of a holder.
    LEASE_RENEW_ALL = "lease_renew_all.sql";
    /// Release a lease gracefully and notify.
    LEASE_RELEASE = "lease_release.sql";
    /// Release a lease by force and notify.
    LEASE_FORCE_RELEASE = "lease_force_release.sql";
    /// The server's time.
    NOW = "now.sql";
    /// Record an operator action.
    ACTION_INSERT = "action_insert.sql";
    /// One page of the action log.
    ACTION_LIST = "action_list.sql";
    /// The output recorded with an execution.
    EXECUTION_OUTPUT_GET = "execution_output_get.sql";
    /// One page of the history of every lease.
    HISTORY_ALL = "history_all.sql";
    /// One page of the history of one lease.
    HISTORY_OF_LEASE = "history_of_lease.sql";
    /// Check and bump a fence.
    FENCE_CHECK_AND_BUMP = "fence_check_and_bump.sql";
    /// Read a fence's token.
    FENCE_CURRENT = "fence_current.sql";
    /// Register a job or replace its definition.
    JOB_UPSERT = "job_upsert.sql";
    /// Read one job.
    JOB_GET = "job_get.sql";
    /// One page of jobs by id.
    JOB_LIST = "job_list.sql";
    /// Pause or resume a job.
    JOB_SET_PAUSED = "job_set_paused.sql";
    /// Mark a job's fires up to an instant to be skipped.
    JOB_SKIP_THROUGH = "job_skip_through.sql";
    /// The last fire accounted for, per job.
    JOB_LAST_FIRES = "job_last_fires.sql";
    /// Lock the jobs of a batch of fires, shared with other batches of fires.
    EXECUTION_RECORD_LOCK_FIRES = "execution_record_lock_fires.sql";
    /// Lock the jobs of a batch with missed runs, excluding every other batch.
    EXECUTION_RECORD_LOCK_MISSED = "execution_record_lock_missed.sql";
    /// Record a batch of fires and missed runs, and wake the workers.
    EXECUTION_RECORD_FIRES = "execution_record_fires.sql";
    /// Lock a job for a trigger and read the server's time.
    EXECUTION_TRIGGER_LOCK = "execution_trigger_lock.sql";
    /// The latest attempt of one fire.
    EXECUTION_LATEST_ATTEMPT = "execution_latest_attempt.sql";
    /// Record a triggered execution, due or running.
    EXECUTION_TRIGGER_INSERT = "execution_trigger_insert.sql";
    /// Claim due executions, applying every job's policies.
    EXECUTION_CLAIM = "execution_claim.sql";
    /// Heartbeat a worker's running executions.
    EXECUTION_HEARTBEAT = "execution_heartbeat.sql";
    /// Finish a running execution and record its retry.
    EXECUTION_COMPLETE = "execution_complete.sql";
    /// Ask an execution to stop, or cancel it before it starts.
    EXECUTION_REQUEST_CANCEL = "execution_request_cancel.sql";
    /// Abandon executions whose worker stopped heartbeating, and record their retries.
    EXECUTION_RESCUE = "execution_rescue.sql";
    /// Read one execution.
    EXECUTION_GET = "execution_get.sql";
    /// One page of executions by id, filtered.
    EXECUTION_LIST = "execution_list.sql";
    /// How far retention has deleted each job's record of its schedule.
    JOB_PRUNED_THROUGH = "job_pruned_through.sql";
    /// Delete a job's executions its retention no longer keeps.
    EXECUTION_PRUNE = "execution_prune.sql";
    /// Register a node as a new incarnation and rehome its previous incarnation's claims.
    NODE_REGISTER = "node_register.sql";
    /// Heartbeat a node and the partitions it holds.
    NODE_HEARTBEAT = "node_heartbeat.sql";
    /// Mark a node as left and rehome its partitions.
    NODE_LEAVE = "node_leave.sql";
    /// Move silent nodes on and record the changes.
    NODE_SWEEP = "node_sweep.sql";
    /// One page of nodes by seq.
    NODE_LIST = "node_list.sql";
    /// One page of node state changes by id.
    NODE_CHANGES = "node_changes.sql";
    /// Create a batch with all its partitions.
    BATCH_CREATE = "batch_create.sql";
    /// Read one batch.
    BATCH_GET = "batch_get.sql";
    /// One page of batches by id, filtered.
    BATCH_LIST = "batch_list.sql";
    /// Read a batch with the tally of its partitions.
    BATCH_TALLY = "batch_tally.sql";
    /// Record a running batch's verdict.
    BATCH_FINISH = "batch_finish.sql";
    /// One page of a batch's partitions by id.
    PARTITION_LIST = "partition_list.sql";
    /// Claim pending partitions for a node.
    PARTITION_CLAIM = "partition_claim.sql";
    /// Save a claimed partition's checkpoint (compare-and-set).
    PARTITION_CHECKPOINT = "partition_checkpoint.sql";
    /// Complete a claimed partition (compare-and-set).
    PARTITION_COMPLETE = "partition_complete.sql";
    /// Fail a claimed partition (compare-and-set).
    PARTITION_FAIL = "partition_fail.sql";
    /// Rehome the partitions of departed nodes.
    PARTITION_REASSIGN = "partition_reassign.sql";
    /// Move pending partitions of a running batch to another node and record the moves.
    PARTITION_MOVE = "partition_move.sql";
    /// One page of a batch's moves by id.
    PARTITION_MOVES = "partition_moves.sql";
    /// Save a claimed partition's checkpoint (compare-and-set) in the caller's transaction.
    PARTITION_CHECKPOINT_IN = "partition_checkpoint_in.sql";
}
