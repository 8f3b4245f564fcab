//! Timing and limits of a [`Scheduler`](super::Scheduler), validated up front.

use std::time::Duration;

use baton_core::{Error, HolderId, LeaseName, Result};

use crate::ElectorConfig;

/// How a scheduler node runs. The defaults suit a fleet of a few to a few hundred nodes.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct SchedulerConfig {
    /// The lease whose holder is the scheduler leader, which records the fires.
    pub lease: LeaseName,
    /// Timing of the leader election; its holder id is this node's id as a worker too.
    pub elector: ElectorConfig,
    /// Handlers running at once on this node. The default, 200, is twice `claim_batch`: a
    /// busy node's slots are split between executions being claimed, run and recorded, so that
    /// claims and completions still go in batches of about `claim_batch`.
    pub max_concurrent: usize,
    /// The most executions one claim takes.
    pub claim_batch: u32,
    /// How often running executions are heartbeated (all of them in one call).
    pub heartbeat_interval: Duration,
    /// A running execution whose heartbeat is older than this (store clock) is abandoned by
    /// the leader and retried as its policy allows. Its worker stops the handler sooner: when
    /// no heartbeat was confirmed for 6/10 of this (monotonic clock, from the send time of the
    /// last confirmed call), so that it stops before anyone else can start.
    pub abandon_after: Duration,
    /// How often a worker looks for due work when neither a notification nor the next due
    /// instant woke it.
    pub poll_interval: Duration,
    /// How long before their instant the leader records fires. Workers learn the next due
    /// instant from their claims and claim right at it, so a fire starts within a claim's
    /// round trip of its instant. Pausing a job also skips its fires already recorded (when
    /// they are claimed); resuming it does not bring back a fire recorded as skipped while it
    /// was paused, so a resume takes effect from about `record_ahead` after it.
    pub record_ahead: Duration,
    /// How long before their instant workers claim fires whose start cannot be refused then
    /// (see `ClaimParams::ahead`), holding a slot until the instant and starting the handler
    /// on it, so that fires falling due together start together. A fire claimed ahead runs
    /// even if its job is paused after the claim. Zero claims fires only once due.
    pub claim_ahead: Duration,
    /// How often the leader rereads the registered jobs (those registered on other nodes).
    pub reload_interval: Duration,
    /// How often the leader prunes executions by each job's retention.
    pub prune_interval: Duration,
    /// How long a graceful shutdown waits for running handlers before cancelling them.
    pub shutdown_grace: Duration,
}

impl Default for SchedulerConfig {
    fn default() -> Self {
        SchedulerConfig::new(ElectorConfig::default())
    }
}

impl SchedulerConfig {
    /// The defaults, with this elector timing (and so this node id).
    pub fn new(elector: ElectorConfig) -> Self {
        SchedulerConfig {
            lease: LeaseName::new("baton-scheduler").expect("a valid lease name"),
            elector,
            max_concurrent: 200,
            claim_batch: 100,
            heartbeat_interval: Duration::from_secs(2),
            abandon_after: Duration::from_secs(10),
            poll_interval: Duration::from_secs(30),
            record_ahead: Duration::from_millis(500),
            claim_ahead: Duration::from_secs(1),
            reload_interval: Duration::from_secs(30),
            prune_interval: Duration::from_secs(60),
            shutdown_grace: Duration::from_secs(30),
        }
    }

    /// This node's id.
    pub fn node(&self) -> &HolderId {
        &self.elector.holder
    }

    /// Checks every value and their relations.
    pub fn validate(&self) -> Result<()> {
        self.elector.validate()?;
        if self.max_concurrent == 0 || self.max_concurrent > 10_000 {
            return Err(Error::invalid_input(format!(
                "invalid max_concurrent {}: expected 1 to 10000",
                self.max_concurrent
            )));
        }
        if self.claim_batch == 0 || self.claim_batch > 1000 {
            return Err(Error::invalid_input(format!(
                "invalid claim_batch {}: expected 1 to 1000",
                self.claim_batch
            )));
        }
        if self.abandon_after < self.heartbeat_interval * 3 {
            return Err(Error::invalid_input(format!(
                "invalid abandon_after {:?}: expected at least three heartbeat intervals ({:?})",
                self.abandon_after,
                self.heartbeat_interval * 3
            )));
        }
        for (what, value) in
            [("record_ahead", self.record_ahead), ("claim_ahead", self.claim_ahead)]
        {
            if value > Duration::from_secs(60) {
                return Err(Error::invalid_input(format!(
                    "invalid {what} {value:?}: expected at most 60s"
                )));
            }
        }
        for (what, value) in [
            ("heartbeat_interval", self.heartbeat_interval),
            ("poll_interval", self.poll_interval),
            ("reload_interval", self.reload_interval),
            ("prune_interval", self.prune_interval),
        ] {
            if value < Duration::from_millis(10) {
                return Err(Error::invalid_input(format!(
                    "invalid {what} {value:?}: expected at least 10ms"
                )));
            }
        }
        Ok(())
    }
}
