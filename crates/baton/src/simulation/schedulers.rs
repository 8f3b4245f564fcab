//! The scheduler scenario: every node runs the scheduler with the same jobs, and each
//! execution's handler checks its claim and writes to its job's fenced resource in a few steps.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use baton_core::layer::Layered;
use baton_core::schedule::{JobPolicy, MisfirePolicy, Retention, RetryPolicy, Schedule};
use baton_core::{HolderId, JobStore, LeaseStore};

use super::net::Link;
use super::world::{Incarnation, NodeRef, World};
use crate::ElectorConfig;
use crate::scheduler::{Handler, Job, JobBuilder, JobContext, Scheduler, SchedulerConfig};

/// The scheduler's lease TTL; the elector's timing is scaled from it.
const TTL: Duration = Duration::from_secs(3);
/// The scenario's jobs, each forbidding overlap (the default), so that at most one attempt of
/// each may act at a time, with a misfire policy each; all but the first retry an abandoned
/// attempt at once. The last fires in the small hours of London, which the runs that start
/// a minute before its clocks go forward or back take across the change.
const JOBS: [ScenarioJob; 4] = [
    ScenarioJob {
        name: "every-second",
        schedule: Spec::Every(Duration::from_secs(1)),
        attempts: 1,
        misfire: MisfirePolicy::Skip,
    },
    ScenarioJob {
        name: "every-three-seconds",
        schedule: Spec::Every(Duration::from_secs(3)),
        attempts: 3,
        misfire: MisfirePolicy::RunLatest,
    },
    ScenarioJob {
        name: "cron-every-two-seconds",
        schedule: Spec::Cron("*/2 * * * * *", "UTC"),
        attempts: 3,
        misfire: MisfirePolicy::RunAll,
    },
    ScenarioJob {
        name: "cron-london-small-hours",
        schedule: Spec::Cron("*/3 * 0,1 * * *", "Europe/London"),
        attempts: 3,
        misfire: MisfirePolicy::RunLatest,
    },
];

/// One job of the scenario.
#[derive(Debug, Clone, Copy)]
struct ScenarioJob {
    name: &'static str,
    schedule: Spec,
    attempts: u32,
    misfire: MisfirePolicy,
}

/// A schedule: an interval, or a cron pattern and its time zone.
#[derive(Debug, Clone, Copy)]
enum Spec {
    Every(Duration),
    Cron(&'static str, &'static str),
}

impl ScenarioJob {
    fn schedule(&self) -> Schedule {
        match self.schedule {
            Spec::Every(interval) => Schedule::every(interval),
            Spec::Cron(pattern, zone) => Schedule::cron(pattern, zone),
        }
        .expect("a valid schedule")
    }

    /// Its policies: its misfire policy and retries, and every execution kept, so that the
    /// checks see each fire's record.
    fn policy(&self) -> JobPolicy {
        let retry = RetryPolicy::none().with_max_attempts(self.attempts);
        let retry = retry.with_backoff(Duration::from_millis(1), Duration::from_millis(1));
        JobPolicy::default()
            .with_misfire(self.misfire)
            .with_retry(retry)
            .with_retention(Retention::default().with_counts(u32::MAX, u32::MAX))
    }

    fn job(&self) -> JobBuilder {
        let job = match self.schedule {
            Spec::Every(interval) => Job::every(self.name, interval),
            Spec::Cron(pattern, zone) => Job::cron(self.name, pattern).time_zone(zone),
        };
        job.policy(self.policy())
    }
}

/// The schedule and policies of each of the scenario's jobs, by name.
pub(super) fn definitions() -> HashMap<&'static str, (Schedule, JobPolicy)> {
    JOBS.iter().map(|job| (job.name, (job.schedule(), job.policy()))).collect()
}

/// A node's scheduler.
pub(super) struct Worker {
    scheduler: Arc<Scheduler>,
}

impl Incarnation for Worker {
    async fn start(world: &Arc<World>, node: NodeRef, link: &Link) -> Self {
        let leases: Arc<dyn LeaseStore> = world.leases.clone();
        let jobs: Arc<dyn JobStore> = world.jobs.clone();
        let leases = Arc::new(Layered::new(leases, link.clone()));
        let jobs = Arc::new(Layered::new(jobs, link.clone()));
        let holder = HolderId::new(node.name.clone()).expect("a holder id");
        let mut config = SchedulerConfig::new(ElectorConfig::new(holder).with_ttl(TTL));
        // Twenty heartbeats per abandonment: a heartbeat may take longer to answer than the
        // margin between the worker's deadline and the abandonment (3/5 and all of 3 s).
        config.heartbeat_interval = Duration::from_millis(150);
        config.abandon_after = Duration::from_secs(3);
        config.poll_interval = Duration::from_secs(1);
        config.shutdown_grace = Duration::from_secs(2);
        let mut builder = Scheduler::builder(leases, jobs).config(config);
        for job in JOBS {
            let handler = handler(world.clone(), node.clone(), job.name);
            builder = builder.job(job.job().handler(handler).expect("a valid job"));
        }
        let scheduler = builder.start().await.expect("the scheduler starts on a healthy link");
        Worker { scheduler: Arc::new(scheduler) }
    }

    fn step_down(&self) {
        let scheduler = self.scheduler.clone();
        tokio::spawn(async move { scheduler.step_down().await });
    }

    fn crash(self) {}

    async fn stop(self) {
        self.scheduler.shutdown().await;
    }
}

/// A handler doing the [work](World::work) of an execution of `job`.
fn handler(world: Arc<World>, node: NodeRef, job: &'static str) -> impl Handler {
    move |ctx: JobContext| {
        let (world, node) = (world.clone(), node.clone());
        async move { world.work(&node, job, ctx.token().get(), || ctx.ensure_valid()).await }
    }
}
