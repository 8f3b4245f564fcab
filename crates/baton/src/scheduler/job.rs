//! Jobs defined in Rust: a schedule, policies and an async handler.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use baton_core::schedule::{JobName, JobPolicy, MisfirePolicy, OverlapPolicy, RetryPolicy};
use baton_core::{JobDefinition, Result, Schedule, StoreTime};

use super::JobContext;
use crate::handler_error::{self, HandlerError};

/// What a handler's future resolves to: `Ok` for success, or the error with its causes on
/// one line, as the execution records it.
pub type HandlerResult = std::result::Result<(), String>;

/// The boxed future a [`Handler`] returns.
pub type HandlerFuture = Pin<Box<dyn Future<Output = HandlerResult> + Send + 'static>>;

/// The code a job runs for each execution.
///
/// Implemented for every `Fn(JobContext) -> impl Future<Output = Result<(), E>>` with
/// `E:` [`Into<HandlerError>`](crate::HandlerError) (any error type, `String`, `anyhow::Error`), so an
/// async closure is a handler. The execution records the error and its chain of causes.
pub trait Handler: Send + Sync + 'static {
    /// Runs one execution.
    fn run(&self, ctx: JobContext) -> HandlerFuture;
}

impl<F, Fut, E> Handler for F
where
    F: Fn(JobContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = std::result::Result<(), E>> + Send + 'static,
    E: Into<HandlerError>,
{
    fn run(&self, ctx: JobContext) -> HandlerFuture {
        let running = self(ctx);
        Box::pin(async move { running.await.map_err(handler_error::rendered) })
    }
}

/// A job ready to register with a [`Scheduler`](super::Scheduler): its definition and handler.
#[derive(Clone)]
pub struct Job {
    pub(crate) definition: JobDefinition,
    pub(crate) handler: Arc<dyn Handler>,
}

impl std::fmt::Debug for Job {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Job").field("definition", &self.definition).finish_non_exhaustive()
    }
}

impl Job {
    /// A job firing on a cron pattern (five fields, or six with seconds first), in UTC unless
    /// [`JobBuilder::time_zone`] says otherwise.
    pub fn cron(name: &str, expression: &str) -> JobBuilder {
        JobBuilder::new(name, ScheduleSpec::Cron { expression: expression.into(), zone: None })
    }

    /// A job firing at every whole multiple of `interval` since the Unix epoch.
    pub fn every(name: &str, interval: Duration) -> JobBuilder {
        JobBuilder::new(name, ScheduleSpec::Every(interval))
    }

    /// A job firing once, at `at`.
    pub fn once(name: &str, at: StoreTime) -> JobBuilder {
        JobBuilder::new(name, ScheduleSpec::Once(at))
    }

    /// The job's definition.
    pub fn definition(&self) -> &JobDefinition {
        &self.definition
    }

    /// The job's name.
    pub fn name(&self) -> &JobName {
        &self.definition.name
    }
}

#[derive(Debug, Clone)]
enum ScheduleSpec {
    Cron { expression: String, zone: Option<String> },
    Every(Duration),
    Once(StoreTime),
}

/// Builds a [`Job`]; every value is checked by [`JobBuilder::handler`], which names the first
/// bad one.
#[derive(Debug, Clone)]
#[must_use = "a job builder does nothing until `handler` builds the job"]
pub struct JobBuilder {
    name: String,
    schedule: ScheduleSpec,
    policy: JobPolicy,
}

impl JobBuilder {
    fn new(name: &str, schedule: ScheduleSpec) -> Self {
        JobBuilder { name: name.to_owned(), schedule, policy: JobPolicy::default() }
    }

    /// The IANA time zone a cron pattern is read in (`Asia/Seoul`); ignored by other schedules.
    pub fn time_zone(mut self, zone: &str) -> Self {
        if let ScheduleSpec::Cron { zone: slot, .. } = &mut self.schedule {
            *slot = Some(zone.to_owned());
        }
        self
    }

    /// Replaces every policy at once.
    pub fn policy(mut self, policy: JobPolicy) -> Self {
        self.policy = policy;
        self
    }

    /// What happens when a fire is due while an earlier one still runs.
    pub fn overlap(mut self, overlap: OverlapPolicy) -> Self {
        self.policy = self.policy.with_overlap(overlap);
        self
    }

    /// What happens to fires missed while no scheduler ran.
    pub fn misfire(mut self, misfire: MisfirePolicy) -> Self {
        self.policy = self.policy.with_misfire(misfire);
        self
    }

    /// The handler is cancelled and the execution marked timed out after this long.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.policy = self.policy.with_timeout(Some(timeout));
        self
    }

    /// Retries of failed, timed-out and abandoned attempts.
    pub fn retry(mut self, retry: RetryPolicy) -> Self {
        self.policy = self.policy.with_retry(retry);
        self
    }

    /// A fire not started within this long of being due is recorded as missed.
    pub fn starting_deadline(mut self, deadline: Duration) -> Self {
        self.policy = self.policy.with_starting_deadline(Some(deadline));
        self
    }

    /// Each fire may start up to this much later than scheduled, at random, to spread load.
    pub fn jitter(mut self, jitter: Duration) -> Self {
        self.policy = self.policy.with_jitter(jitter);
        self
    }

    /// Checks the name, schedule and policies and builds the job with its handler.
    pub fn handler(self, handler: impl Handler) -> Result<Job> {
        let name = JobName::new(self.name)?;
        let schedule = match self.schedule {
            ScheduleSpec::Cron { expression, zone } => {
                Schedule::cron(&expression, zone.as_deref().unwrap_or("UTC"))?
            }
            ScheduleSpec::Every(interval) => Schedule::every(interval)?,
            ScheduleSpec::Once(at) => Schedule::once(at),
        };
        self.policy.validate()?;
        let definition = JobDefinition { name, schedule, policy: self.policy };
        Ok(Job { definition, handler: Arc::new(handler) })
    }
}
