//! What happened in one simulated run, in order: what the checks judge and what a replay of
//! the same seed must reproduce exactly.

use std::sync::Mutex;

/// One thing that happened, at a millisecond of the store's clock. `key` names what was held:
/// the lease, or the job an execution belongs to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Event {
    /// A holder checked its claim and acted under its token.
    Acted { at: i64, node: String, key: String, token: u64 },
    /// The key's fenced resource took a write, or refused it as stale.
    Wrote { at: i64, node: String, key: String, token: u64, accepted: bool },
    /// The fault schedule did something to a node.
    Fault { at: i64, node: String, fault: Fault },
}

/// What the fault schedule can do to a node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Fault {
    /// Its requests stop arriving for a while.
    Cut,
    /// Its calls take up to nearly the runtime's longest wait, each way, for a while.
    Slow,
    /// About half its answers are lost for a while, after the store applied the call.
    LoseAnswers,
    /// Its link is slow for a while, then its requests stop arriving for as long.
    Degrade,
    /// Its link goes down and up for a while, losing answers while up.
    Flap,
    /// Its leader stops between its next check and its write, for a while.
    Pause,
    /// It is asked to step down.
    StepDown,
    /// It crashes, and starts again as a new incarnation a while later.
    Crash,
    /// It starts again after a crash.
    Restart,
    /// It goes down with every other node, for hours.
    Outage,
}

impl Fault {
    /// The faults the schedule draws from.
    pub(super) const DRAWN: [Fault; 8] = [
        Fault::Cut,
        Fault::Slow,
        Fault::LoseAnswers,
        Fault::Degrade,
        Fault::Flap,
        Fault::Pause,
        Fault::StepDown,
        Fault::Crash,
    ];
}

/// A claim the store granted (a term of a lease, an attempt of a job's execution), read from
/// the store after the run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Grant {
    pub(super) key: String,
    pub(super) at: i64,
    pub(super) token: u64,
    pub(super) holder: String,
}

/// The events of a run as they are recorded.
#[derive(Debug, Default)]
pub(super) struct Recorder(Mutex<Vec<Event>>);

impl Recorder {
    pub(super) fn record(&self, event: Event) {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).push(event);
    }

    pub(super) fn events(&self) -> Vec<Event> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

/// A finished run.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Run {
    pub(super) events: Vec<Event>,
    /// The terms of every lease, in the order the store granted them.
    pub(super) terms: Vec<Grant>,
    /// Every execution record of the jobs, oldest first.
    pub(super) executions: Vec<baton_core::Execution>,
    /// Every partition of every batch.
    pub(super) partitions: Vec<baton_core::cluster::Partition>,
    /// The store's clock when the fault schedule stopped and every link healed.
    pub(super) calm_from: i64,
    pub(super) ended_at: i64,
    /// Whether the work goes on all the time, rather than in batches that end.
    pub(super) continuous: bool,
}
