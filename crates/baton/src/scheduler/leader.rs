//! The scheduler leader's term: it plans every job's fires from the store's clock and records
//! them, one batch per due instant, `record_ahead` before that instant (so that workers are
//! waiting for them when they fall due); it also abandons executions whose node went silent
//! and prunes executions by retention.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::Duration;

use baton_core::job::{
    MissedFires, NewFire, PruneParams, RecordFiresParams, RescueParams, all_jobs,
};
use baton_core::schedule::{JobName, MisfirePolicy, plan_fires};
use baton_core::{Job, JobStore, Result, StoreTime};
use tokio::time::{Instant, sleep_until};

use super::SchedulerConfig;
use super::store_clock::StoreClock;
use crate::LeaderHandle;
use crate::planted::{Bug, planted};

/// The most fires one `record_fires` call carries.
const BATCH: usize = 1000;
/// The most executions one rescue abandons.
const RESCUE_BATCH: u32 = 1000;
/// How long after an execution can go stale the leader looks, and the shortest wait between
/// two rescues, so that clock estimates a little off never make it spin.
const RESCUE_SLACK: Duration = Duration::from_millis(100);
/// How far before the last listing of jobs the next one starts.
const RELIST_MARGIN_MS: i64 = 5_000;
/// How long the leader waits before retrying a store call that failed.
const RETRY: Duration = Duration::from_millis(200);

/// Runs one term until leadership ends; store errors are retried while the term lasts.
pub(crate) async fn run_term(
    store: Arc<dyn JobStore>,
    config: SchedulerConfig,
    term: LeaderHandle,
) {
    let mut leader = Leader {
        store,
        config,
        jobs: BTreeMap::new(),
        last: BTreeMap::new(),
        due: BTreeSet::new(),
        dirty: BTreeSet::new(),
        listed_at: None,
    };
    tokio::select! {
        biased;
        () = term.cancelled() => {}
        () = leader.lead(&term) => {}
    }
    tracing::info!(token = %term.token(), "scheduler term ended");
}

struct Leader {
    store: Arc<dyn JobStore>,
    config: SchedulerConfig,
    /// Every registered job, as last read.
    jobs: BTreeMap<JobName, Job>,
    /// The newest fire accounted for (recorded or missed), per job.
    last: BTreeMap<JobName, StoreTime>,
    /// The next fire of every job, ordered by instant.
    due: BTreeSet<(StoreTime, JobName)>,
    /// Jobs that fired since their executions were last pruned.
    dirty: BTreeSet<JobName>,
    /// The store time of the last listing of jobs; the next lists only what changed since.
    listed_at: Option<StoreTime>,
}

impl Leader {
    async fn lead(&mut self, term: &LeaderHandle) {
        let (mut clock, mut rescue_at) = loop {
            match self.start(term).await {
                Ok(started) => break started,
                Err(err) => {
                    tracing::warn!(%err, "scheduler leader could not start its term, retrying");
                    tokio::time::sleep(RETRY).await;
                }
            }
        };
        let mut reload_at = Instant::now() + self.config.reload_interval;
        let mut prune_at = Instant::now() + self.config.prune_interval;
        loop {
            let next_fire = self.due.first().map(|(at, _)| *at);
            let fire_at = next_fire.map_or(reload_at, |at| {
                let local = clock.local_instant(at);
                local.checked_sub(self.config.record_ahead).unwrap_or(local)
            });
            let wake = fire_at.min(reload_at).min(rescue_at).min(prune_at);
            sleep_until(wake).await;
            let now = Instant::now();
            let outcome = if let Some(at) = next_fire.filter(|_| now >= fire_at) {
                self.fire(term, &clock, at).await
            } else if now >= reload_at {
                reload_at = now + self.config.reload_interval;
                match StoreClock::read(&*self.store).await {
                    Ok(read) => {
                        clock = read;
                        self.reload(term, &clock).await
                    }
                    Err(err) => Err(err),
                }
            } else if now >= rescue_at {
                match self.rescue(&clock).await {
                    Ok(next) => {
                        rescue_at = next;
                        Ok(())
                    }
                    Err(err) => {
                        rescue_at = now + self.config.heartbeat_interval;
                        Err(err)
                    }
                }
            } else {
                prune_at = now + self.config.prune_interval;
                self.prune().await
            };
            if let Err(err) = outcome {
                tracing::warn!(%err, "scheduler leader step failed, retrying");
                tokio::time::sleep(RETRY).await;
            }
        }
    }

    /// Reads every job and where each stopped, and records what was due meanwhile; answers
    /// the store's clock and when to rescue next.
    ///
    /// It rescues first: the executions of a node that died (the previous leader's among
    /// them) whose heartbeats are already stale are abandoned before the fires owed since are
    /// recorded, so that the claims of those fires do not decide their overlap against
    /// executions that no longer run.
    async fn start(&mut self, term: &LeaderHandle) -> Result<(StoreClock, Instant)> {
        self.jobs.clear();
        self.due.clear();
        self.listed_at = None;
        let clock = StoreClock::read(&*self.store).await?;
        let rescue_at = self.rescue(&clock).await?;
        self.last = self.store.job_last_fires().await?.into_iter().collect();
        self.reload(term, &clock).await?;
        Ok((clock, rescue_at))
    }

    /// Rereads the jobs registered or changed since the last listing (every job at the start
    /// of a term) and plans those that are new or changed, so that an idle leader reads one
    /// short page per reload however many jobs there are.
    async fn reload(&mut self, term: &LeaderHandle, clock: &StoreClock) -> Result<()> {
        // From a little before the last listing, so that a change stamped just before it but
        // committed just after it is not missed.
        let since =
            self.listed_at.map(|at| StoreTime::from_millis(at.as_millis() - RELIST_MARGIN_MS));
        let listed_at = clock.now();
        let jobs = all_jobs(&*self.store, since).await?;
        self.listed_at = Some(listed_at);
        let changed: Vec<JobName> = jobs
            .iter()
            .filter(|job| self.jobs.get(job.name()) != Some(job))
            .map(|job| job.name().clone())
            .collect();
        for job in jobs {
            self.jobs.insert(job.name().clone(), job);
        }
        for name in &changed {
            self.due.retain(|(_, job)| job != name);
        }
        self.plan(term, &changed, clock.now()).await
    }

    /// Records the fires of the jobs whose next fire is `at`.
    async fn fire(&mut self, term: &LeaderHandle, clock: &StoreClock, at: StoreTime) -> Result<()> {
        let names: Vec<JobName> = self
            .due
            .iter()
            .take_while(|(due, _)| *due <= at)
            .map(|(_, name)| name.clone())
            .collect();
        self.plan(term, &names, clock.now().max(at)).await
    }

    /// Plans the named jobs up to `now`, records the outcome, and queues their next fires.
    async fn plan(&mut self, term: &LeaderHandle, names: &[JobName], now: StoreTime) -> Result<()> {
        let mut params = RecordFiresParams::default();
        let mut planned = Vec::with_capacity(names.len());
        for name in names {
            let Some(job) = self.jobs.get(name) else { continue };
            let definition = &job.definition;
            let mut policy = definition.policy;
            if planted(Bug::ReplayMissedFires) {
                policy = policy.with_misfire(MisfirePolicy::RunAll);
            }
            let last = self.last.get(name).copied();
            let mut plan = plan_fires(&definition.schedule, &policy, last, job.created_at, now);
            if planted(Bug::ForgetMissedFires) {
                plan.missed.clear();
            }
            count_skipped(job, &plan.run);
            for range in &plan.missed {
                crate::metrics::fires_missed(name, "misfire", range.count);
            }
            let jitter = definition.policy.jitter;
            params.fires.extend(plan.run.iter().map(|at| NewFire {
                job: name.clone(),
                scheduled_at: *at,
                due_at: at.saturating_add(random_up_to(jitter)),
            }));
            params.missed.extend(plan.missed.iter().map(|range| MissedFires {
                job: name.clone(),
                first: range.first,
                last: range.last,
                count: range.count,
                reason: range.reason.clone(),
            }));
            planned.push((name.clone(), plan.last_planned(), plan.next_after_plan));
        }
        if !params.fires.is_empty() || !params.missed.is_empty() {
            term.ensure_valid()?;
            self.record(params).await?;
        }
        for (name, last, next) in planned {
            self.due.retain(|(_, job)| *job != name);
            if let Some(last) = last {
                self.last.insert(name.clone(), last);
                self.dirty.insert(name.clone());
            }
            if let Some(next) = next {
                self.due.insert((next, name));
            }
        }
        Ok(())
    }

    async fn record(&self, params: RecordFiresParams) -> Result<()> {
        let RecordFiresParams { fires, missed } = params;
        let mut chunks = fires.chunks(BATCH).peekable();
        if chunks.peek().is_none() {
            self.store.record_fires(RecordFiresParams { fires: Vec::new(), missed }).await?;
            return Ok(());
        }
        let mut missed = Some(missed);
        for chunk in chunks {
            let params = RecordFiresParams {
                fires: chunk.to_vec(),
                missed: missed.take().unwrap_or_default(),
            };
            self.store.record_fires(params).await?;
        }
        Ok(())
    }

    /// Abandons the executions whose node went silent, and answers when to look again: just
    /// after the oldest heartbeat left running can go stale, and no later than
    /// `abandon_after` from now (an execution may start meanwhile), so that a silent node's
    /// execution is abandoned about `abandon_after` after its last heartbeat, while an idle
    /// leader rescues once per `abandon_after`.
    async fn rescue(&self, clock: &StoreClock) -> Result<Instant> {
        let stale_after = self.config.abandon_after;
        let params = RescueParams { stale_after, limit: RESCUE_BATCH };
        let rescued = self.store.rescue(params).await?;
        for execution in &rescued.abandoned {
            tracing::warn!(job = %execution.job, execution = execution.id, "execution abandoned: its node stopped heartbeating");
        }
        let soonest = Instant::now() + RESCUE_SLACK;
        let latest = Instant::now() + stale_after;
        if rescued.abandoned.len() >= RESCUE_BATCH as usize {
            return Ok(soonest);
        }
        Ok(rescued.oldest_heartbeat.map_or(latest, |oldest| {
            let stale_at = clock.local_instant(oldest.saturating_add(stale_after)) + RESCUE_SLACK;
            stale_at.clamp(soonest, latest)
        }))
    }

    async fn prune(&mut self) -> Result<()> {
        let dirty: Vec<JobName> = std::mem::take(&mut self.dirty).into_iter().collect();
        for name in dirty {
            let Some(job) = self.jobs.get(&name) else { continue };
            let params = PruneParams {
                job: name.clone(),
                retention: job.definition.policy.retention,
                batch: 1000,
            };
            if let Err(err) = self.store.prune(params).await {
                self.dirty.insert(name);
                return Err(err);
            }
        }
        Ok(())
    }
}

/// Counts the fires the store will record as skipped: all of a paused job's, and those at or
/// before its `skip_through`.
fn count_skipped(job: &Job, fires: &[StoreTime]) {
    let (reason, skipped) = if job.paused {
        ("paused", fires.len())
    } else {
        let through = job.skip_through.unwrap_or(StoreTime::from_millis(i64::MIN));
        ("skip-next", fires.iter().filter(|at| **at <= through).count())
    };
    if skipped > 0 {
        crate::metrics::fires_skipped(job.name(), reason, skipped as u64);
    }
}

/// A random duration in `[0, max)`, or zero.
fn random_up_to(max: Duration) -> Duration {
    let millis = u64::try_from(max.as_millis()).unwrap_or(u64::MAX);
    if millis == 0 { Duration::ZERO } else { Duration::from_millis(fastrand::u64(..millis)) }
}
