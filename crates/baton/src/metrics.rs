//! The metrics this runtime records through the [`metrics`] facade.
//!
//! Nothing is exported unless the application installs a recorder (the agent installs a
//! Prometheus one, see `baton-server`); without one, recording costs next to nothing. The
//! names below are the exported names.

use std::time::Duration;

use baton_core::ExecutionStatus;
use baton_core::schedule::JobName;

/// Histogram of the time one renewal of all held leases took, in seconds, labelled
/// `outcome` (`renewed`, `failed` or `timed_out`).
pub const LEASE_RENEW_SECONDS: &str = "baton_lease_renew_seconds";
/// Counter of renewals that failed or timed out, labelled `reason` (`error`, `timeout`).
pub const LEASE_RENEW_FAILURES: &str = "baton_lease_renew_failures_total";
/// Counter of leases this process lost while it believed it held them, labelled `lease`.
pub const LEASES_LOST: &str = "baton_leases_lost_total";
/// Counter of executions this process finished, labelled `job` and `status`.
pub const EXECUTIONS: &str = "baton_executions_total";
/// Histogram of how late executions started after they fell due, in seconds, labelled `job`.
pub const FIRE_LAG_SECONDS: &str = "baton_fire_lag_seconds";
/// Counter of fires recorded as skipped, labelled `job` and `reason` (`paused`,
/// `skip-next`, `overlap`, `other`).
pub const FIRES_SKIPPED: &str = "baton_fires_skipped_total";
/// Counter of fires recorded as missed, labelled `job` and `reason` (`misfire`,
/// `starting-deadline`).
pub const FIRES_MISSED: &str = "baton_fires_missed_total";

/// Gives every metric above its help text (the `# HELP` line of an exposition) in the
/// installed recorder; call it once the recorder is installed.
pub fn describe() {
    use metrics::{Unit, describe_counter, describe_histogram};
    let histograms = [
        (LEASE_RENEW_SECONDS, "Time one renewal of all leases this process held took, by outcome."),
        (FIRE_LAG_SECONDS, "How late executions were claimed after they fell due, by job."),
    ];
    for (name, help) in histograms {
        describe_histogram!(name, Unit::Seconds, help);
    }
    let counters = [
        (LEASE_RENEW_FAILURES, "Lease renewals that failed or timed out, by reason."),
        (LEASES_LOST, "Leases this process lost while it believed it held them."),
        (EXECUTIONS, "Executions this process finished, by job and status."),
        (FIRES_SKIPPED, "Fires recorded as skipped, by job and reason."),
        (FIRES_MISSED, "Fires recorded as missed, by job and reason."),
    ];
    for (name, help) in counters {
        describe_counter!(name, help);
    }
}

/// How one renewal of all held leases ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RenewOutcome {
    Renewed,
    Failed,
    TimedOut,
}

/// Records one renewal call and its latency.
pub(crate) fn lease_renewal(took: Duration, outcome: RenewOutcome) {
    let label = match outcome {
        RenewOutcome::Renewed => "renewed",
        RenewOutcome::Failed => "failed",
        RenewOutcome::TimedOut => "timed_out",
    };
    metrics::histogram!(LEASE_RENEW_SECONDS, "outcome" => label).record(took.as_secs_f64());
    let reason = match outcome {
        RenewOutcome::Renewed => return,
        RenewOutcome::Failed => "error",
        RenewOutcome::TimedOut => "timeout",
    };
    metrics::counter!(LEASE_RENEW_FAILURES, "reason" => reason).increment(1);
}

/// Records a lease lost while held.
pub(crate) fn lease_lost(lease: &str) {
    metrics::counter!(LEASES_LOST, "lease" => lease.to_string()).increment(1);
}

/// Records a finished execution.
pub(crate) fn execution_finished(job: &JobName, status: ExecutionStatus) {
    let labels = [("job", job.to_string()), ("status", status.as_str().to_string())];
    metrics::counter!(EXECUTIONS, &labels).increment(1);
}

/// Records how late an execution started after falling due.
pub(crate) fn fire_lag(job: &JobName, lag: Duration) {
    metrics::histogram!(FIRE_LAG_SECONDS, "job" => job.to_string()).record(lag.as_secs_f64());
}

/// Records `count` fires skipped for `reason`.
pub(crate) fn fires_skipped(job: &JobName, reason: &'static str, count: u64) {
    metrics::counter!(FIRES_SKIPPED, "job" => job.to_string(), "reason" => reason).increment(count);
}

/// Records `count` fires missed for `reason`.
pub(crate) fn fires_missed(job: &JobName, reason: &'static str, count: u64) {
    metrics::counter!(FIRES_MISSED, "job" => job.to_string(), "reason" => reason).increment(count);
}

/// Records an execution that a claim settled without running it, by the reason in its
/// detail.
pub(crate) fn execution_settled(execution: &baton_core::Execution) {
    let detail = execution.detail.as_deref().unwrap_or_default();
    let count = execution.covers_count;
    match execution.status {
        ExecutionStatus::Missed => fires_missed(&execution.job, "starting-deadline", count),
        _ if detail.starts_with("job is paused") => fires_skipped(&execution.job, "paused", count),
        _ if detail.starts_with("skip-next") => fires_skipped(&execution.job, "skip-next", count),
        _ if detail.starts_with("overlap=") => fires_skipped(&execution.job, "overlap", count),
        _ => fires_skipped(&execution.job, "other", count),
    }
}
