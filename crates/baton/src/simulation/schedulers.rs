//! The scheduler scenario: every node runs the scheduler with the same jobs, and each
//! execution's handler checks its claim and writes to its job's fenced resource in a few steps.

use std::sync::Arc;
use std::time::Duration;

use baton_core::layer::Layered;
use baton_core::schedule::RetryPolicy;
use baton_core::{HolderId, JobStore, LeaseStore};

use super::net::Link;
use super::world::{Incarnation, NodeRef, World};
use crate::ElectorConfig;
use crate::scheduler::{Handler, Job, JobContext, Scheduler, SchedulerConfig};

/// The scheduler's lease TTL; the elector's timing is scaled from it.
const TTL: Duration = Duration::from_secs(3);
/// Two interval jobs and a cron job, each forbidding overlap (the default), so that at most one
/// attempt of each may act at a time; the last two retry an abandoned attempt at once.
const JOBS: [(&str, Schedule, u32); 3] = [
    ("every-second", Schedule::Every(Duration::from_secs(1)), 1),
    ("every-three-seconds", Schedule::Every(Duration::from_secs(3)), 3),
    ("cron-every-two-seconds", Schedule::Cron("*/2 * * * * *"), 3),
];

#[derive(Debug, Clone, Copy)]
enum Schedule {
    Every(Duration),
    Cron(&'static str),
}

/// The interval between two fires of the scenario's job `name`.
pub(super) fn interval(name: &str) -> Option<Duration> {
    JOBS.iter().find(|(job, ..)| *job == name).map(|(_, schedule, _)| match schedule {
        Schedule::Every(interval) => *interval,
        Schedule::Cron(_) => Duration::from_secs(2),
    })
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
        for (name, schedule, attempts) in JOBS {
            let job = match schedule {
                Schedule::Every(interval) => Job::every(name, interval),
                Schedule::Cron(expression) => Job::cron(name, expression),
            };
            let retry = RetryPolicy::none().with_max_attempts(attempts);
            let job =
                job.retry(retry.with_backoff(Duration::from_millis(1), Duration::from_millis(1)));
            let handler = handler(world.clone(), node.clone(), name);
            builder = builder.job(job.handler(handler).expect("a valid job"));
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
