//! The cluster-wide scheduler: every node registers its jobs and works; the elected leader
//! records each fire once; workers on every node claim and run due executions.
//!
//! ```no_run
//! # async fn example() -> baton::Result<()> {
//! use baton::scheduler::{Job, Scheduler, SchedulerConfig};
//! let backend = baton::connect("sqlite://baton.db").await?;
//! let settlement = Job::cron("settlement", "0 */5 * * * *")
//!     .time_zone("Asia/Seoul")
//!     .timeout(std::time::Duration::from_secs(60))
//!     .handler(|ctx: baton::scheduler::JobContext| async move {
//!         // Pass ctx.token() to every fenced write.
//!         Ok::<(), std::io::Error>(())
//!     })?;
//! let scheduler = Scheduler::builder(backend.leases(), backend.jobs())
//!     .config(SchedulerConfig::default())
//!     .job(settlement)
//!     .start()
//!     .await?;
//! // ... until the service stops:
//! scheduler.shutdown().await;
//! # Ok(())
//! # }
//! ```
//!
//! The leader keeps the next fire of every registered job in memory and, at each due instant,
//! records the fires of all jobs due then in one call; the store's unique constraint on
//! `(job, fire key, attempt)` means a second leader for a moment cannot record a fire twice.
//! Workers are woken by the store's notifications, heartbeat their running executions in one
//! call per interval, and record each outcome under the attempt's fencing token.

mod config;
mod context;
mod job;
mod leader;
mod store_clock;
mod worker;

use std::sync::Arc;

use baton_core::layer::Layered;
use baton_core::{HolderId, JobStore, LeaseStore, Result};
use tokio_util::sync::{CancellationToken, DropGuard};
use tokio_util::task::TaskTracker;

pub use config::SchedulerConfig;
pub use context::JobContext;
pub use job::{Handler, HandlerFuture, HandlerResult, Job, JobBuilder};

use crate::claim::TimeLimit;
use crate::elector::StepDown;
use crate::{Elector, Leadership};
use tokio::sync::watch;
use worker::Worker;

/// Collects the configuration and jobs of a [`Scheduler`].
#[must_use = "a scheduler builder does nothing until `start`"]
pub struct SchedulerBuilder {
    leases: Arc<dyn LeaseStore>,
    store: Arc<dyn JobStore>,
    config: SchedulerConfig,
    jobs: Vec<Job>,
}

impl SchedulerBuilder {
    /// Replaces the default configuration.
    pub fn config(mut self, config: SchedulerConfig) -> Self {
        self.config = config;
        self
    }

    /// Adds a job this node registers and runs.
    pub fn job(mut self, job: Job) -> Self {
        self.jobs.push(job);
        self
    }

    /// Validates the configuration, registers the jobs, and starts campaigning for the
    /// leadership and working.
    pub async fn start(self) -> Result<Scheduler> {
        self.config.validate()?;
        for job in &self.jobs {
            self.store.job_upsert(job.definition.clone()).await?;
        }
        let elector = Elector::new(self.leases, self.config.elector.clone())?;
        let campaign = elector.campaign(self.config.lease.clone());
        let leadership = campaign.watch();
        let step_downs = campaign.step_downs();
        // Dropping the scheduler fires `halt`: every loop stops and every claim ends at once.
        let halt = CancellationToken::new();
        let stop = halt.child_token();
        let tasks = TaskTracker::new();
        // No call of the leader or the worker may wait longer than the deadline it serves: the
        // term's (the renew deadline) or the executions' (6/10 of `abandon_after`).
        let limit = self.config.elector.renew_deadline.min(worker::local_deadline(&self.config));
        let bounded: Arc<dyn JobStore> = Arc::new(Layered::new(self.store, TimeLimit(limit)));
        let (worker, outcomes) =
            Worker::new(bounded.clone(), self.config.clone(), self.jobs, halt.clone());
        let worker = Arc::new(worker);
        // Heartbeats go on while a shutdown waits for the running handlers.
        let beating = halt.child_token();
        tasks.spawn(worker.clone().claim_loop(stop.clone()));
        tasks.spawn(worker.clone().completion_loop(outcomes, halt.clone()));
        tasks.spawn(worker.clone().heartbeat_loop(beating.clone()));
        tasks.spawn(worker.clone().enforce_claims());
        let (store, config, leading) = (bounded.clone(), self.config.clone(), stop.clone());
        tasks.spawn(async move {
            loop {
                let term = tokio::select! {
                    biased;
                    () = leading.cancelled() => return,
                    term = campaign.leader() => term,
                };
                let Ok(term) = term else {
                    // The campaign logged why; this node keeps working without leading.
                    return;
                };
                tokio::select! {
                    biased;
                    () = leading.cancelled() => return,
                    () = leader::run_term(store.clone(), config.clone(), term) => {}
                }
            }
        });
        tasks.close();
        Ok(Scheduler {
            elector,
            store: bounded,
            worker,
            stop,
            beating,
            tasks,
            leadership,
            step_downs,
            _halt: halt.drop_guard(),
        })
    }
}

/// A running scheduler node. Call [`Scheduler::shutdown`] to stop it gracefully; dropping it
/// instead stops its work at once, as a crash would: running handlers see their context
/// cancelled and nothing is recorded for them (the leader abandons and retries them), and the
/// leadership is released in the background.
pub struct Scheduler {
    elector: Elector,
    store: Arc<dyn JobStore>,
    worker: Arc<Worker>,
    /// Stops leading and claiming.
    stop: CancellationToken,
    /// Stops heartbeating, once the running handlers are done.
    beating: CancellationToken,
    tasks: TaskTracker,
    leadership: watch::Receiver<Leadership>,
    step_downs: StepDown,
    _halt: DropGuard,
}

impl std::fmt::Debug for Scheduler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scheduler").finish_non_exhaustive()
    }
}

impl Scheduler {
    /// A builder over a lease store (for the leader election) and a job store.
    pub fn builder(leases: Arc<dyn LeaseStore>, jobs: Arc<dyn JobStore>) -> SchedulerBuilder {
        SchedulerBuilder {
            leases,
            store: jobs,
            config: SchedulerConfig::default(),
            jobs: Vec::new(),
        }
    }

    /// This node's id: its holder id in the election and its name on executions it runs.
    pub fn node(&self) -> &HolderId {
        &self.elector.config().holder
    }

    /// Whether this node is the scheduler leader, and the term's token when it is. The
    /// channel closes when the node can never lead again (its campaign stopped for good, see
    /// [`Campaign`](crate::Campaign)); the node keeps working meanwhile.
    pub fn leadership(&self) -> watch::Receiver<Leadership> {
        self.leadership.clone()
    }

    /// Gives up the scheduler leadership if this node holds it, so that another node takes
    /// over at once (see [`Campaign::step_down`](crate::Campaign::step_down)); answers whether
    /// this node was leading. The node keeps working, and campaigns again later.
    pub async fn step_down(&self) -> bool {
        self.step_downs.request().await
    }

    /// The job store this scheduler works on.
    pub fn store(&self) -> &Arc<dyn JobStore> {
        &self.store
    }

    /// Graceful shutdown: stops leading and claiming, waits for running handlers up to the
    /// grace period while still heartbeating them, then releases the leadership so another
    /// node takes over at once. Calling it again waits for the same end.
    pub async fn shutdown(&self) {
        self.stop.cancel();
        self.worker.drain().await;
        self.beating.cancel();
        self.tasks.wait().await;
        self.elector.shutdown().await;
    }
}
