//! Fault scenarios for the scheduler with three nodes as separate processes
//! (`baton-test-node`), shared by every backend's scheduler fault tests.
//!
//! Each scenario waits on the nodes' events or on the store's record (polled, with a timeout),
//! never on a sleep, and ends like `baton audit`: the fires every job owed between the first
//! fire on record and the last are recomputed and compared with the record (no duplicate, no
//! unexplained missing fire), and the ledger is checked (no stale write accepted). Every
//! scenario also checks invariant I6 on the whole record and on the nodes' reports (see
//! [`Cluster::finish`]).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use baton::core::job::{ExecutionListParams, all_executions, all_jobs, audit};
use baton::core::{Execution, ExecutionStatus, Job, JobStore, Trigger};
use baton::{ChangeReason, HistoryParams, Lease, LeaseName, LeaseStore, StoreTime};

use crate::faults::{MEASUREMENT_ALLOWANCE, PATIENCE, retry_with_jitter};
use crate::ledger::{Ledger, LedgerReport};
use crate::node::{self, NodeProcess, Run, SLOW, TICK};

/// The lease whose holder is the scheduler leader (the scheduler's default).
pub const SCHEDULER_LEASE: &str = "baton-scheduler";
/// How often the test rereads the store while it waits for a condition.
/// How often the harness reads the store while it waits for something.
pub(crate) const POLL: Duration = Duration::from_millis(50);

/// Where the nodes run.
#[derive(Debug, Clone)]
pub struct Setup {
    /// Path of the `baton-test-node` binary.
    pub binary: String,
    /// Backend URL the nodes use.
    pub url: String,
    /// Where their leases are: `url` itself, or a lease-only store beside it.
    pub leases: String,
    /// Their election's TTL: [`node::TTL`], or the lease store's shortest.
    pub ttl: Duration,
}

impl Setup {
    /// Nodes running `binary` with leases and state in the one store at `url`, under
    /// [`node::TTL`].
    pub fn on(binary: &str, url: String) -> Setup {
        Setup { binary: binary.to_string(), leases: url.clone(), url, ttl: node::TTL }
    }

    /// Migrates the store, creates the ledger, and connects the test's own view of the
    /// record.
    pub async fn cluster(&self) -> Cluster {
        let backend =
            baton::connect_split(&self.leases, &self.url).await.expect("connecting to the store");
        backend.migrate().await.expect("migrating the store");
        let ledger = Ledger::open(&self.url).await.expect("creating the ledger");
        Cluster {
            setup: self.clone(),
            jobs: backend.jobs(),
            leases: backend.leases(),
            ledger,
            nodes: Vec::new(),
            gone: Vec::new(),
        }
    }
}

/// What a scenario measured, on the store's clock.
#[derive(Debug, Clone, Default)]
pub struct Measured {
    /// From the fault to a new scheduler leader's acquisition.
    pub failover: Option<Duration>,
    /// From the fault to the start of the first fire scheduled after it.
    pub fires_resumed: Option<Duration>,
    /// From the fault to the abandonment of the execution it interrupted.
    pub abandoned: Option<Duration>,
    /// From the fault to the start of that execution's retry.
    pub retried: Option<Duration>,
    /// The final audit: fires owed, ran, explained (skipped or missed), late, max lag.
    pub audit: String,
    /// The ledger's check.
    pub ledger: LedgerReport,
}

impl std::fmt::Display for Measured {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let show = |d: Option<Duration>| d.map_or("-".to_string(), |d| format!("{d:?}"));
        write!(
            f,
            "fail-over {}, fires resumed {}, abandoned {}, retried {} (after the fault, store \
             clock); audit {}; ledger {} accepted, {} rejected, {} stale accepted",
            show(self.failover),
            show(self.fires_resumed),
            show(self.abandoned),
            show(self.retried),
            self.audit,
            self.ledger.accepted,
            self.ledger.rejected,
            self.ledger.stale_accepted
        )
    }
}

/// Three (or so) node processes over one store, and the test's view of the store.
pub struct Cluster {
    setup: Setup,
    jobs: Arc<dyn JobStore>,
    leases: Arc<dyn LeaseStore>,
    ledger: Ledger,
    nodes: Vec<NodeProcess>,
    /// Nodes killed: they cannot be asked to quit.
    gone: Vec<String>,
}

impl Cluster {
    /// Starts the nodes `names`, each running the handlers of `jobs`, and waits until each
    /// is ready.
    pub async fn start(&mut self, names: &[&str], jobs: &[&str]) {
        let first = self.nodes.len();
        for name in names {
            let setup = &self.setup;
            let urls = [setup.url.as_str(), &setup.leases];
            let node = NodeProcess::spawn(&setup.binary, urls, setup.ttl, name, jobs);
            self.nodes.push(node);
        }
        for node in &mut self.nodes[first..] {
            node.expect("READY", PATIENCE).await;
        }
    }

    /// The node named `name`.
    pub fn node(&mut self, name: &str) -> &mut NodeProcess {
        self.nodes.iter_mut().find(|n| n.name == name).unwrap_or_else(|| panic!("no node {name}"))
    }

    /// SIGKILL of node `name`.
    pub async fn kill9(&mut self, name: &str) {
        self.node(name).kill9().await;
        self.gone.push(name.to_string());
    }

    /// The job store, as the test sees it.
    pub fn jobs(&self) -> &Arc<dyn JobStore> {
        &self.jobs
    }

    /// The lease store, as the test sees it.
    pub fn leases(&self) -> &Arc<dyn LeaseStore> {
        &self.leases
    }

    /// The store's clock now.
    pub async fn now(&self) -> StoreTime {
        self.jobs.now().await.expect("reading the store's clock")
    }

    /// Every execution on record, oldest first.
    pub async fn executions(&self) -> Vec<Execution> {
        all_executions(&*self.jobs, ExecutionListParams::default())
            .await
            .expect("listing executions")
    }

    /// Rereads the executions until `found` finds what it looks for; panics after `within`.
    pub async fn wait_record<T>(
        &self,
        what: &str,
        within: Duration,
        found: impl Fn(&[Execution]) -> Option<T>,
    ) -> T {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            let executions = self.executions().await;
            if let Some(answer) = found(&executions) {
                return answer;
            }
            if tokio::time::Instant::now() >= deadline {
                panic!("no {what} on record within {within:?}; record: {executions:#?}");
            }
            tokio::time::sleep(POLL).await;
        }
    }

    /// The scheduler lease's record as stored.
    pub async fn leader_lease(&self) -> Option<Lease> {
        let name: LeaseName = SCHEDULER_LEASE.parse().expect("a lease name");
        self.leases.get(&name).await.expect("reading the scheduler lease")
    }

    /// Waits until the store shows the scheduler lease held (at store time) under a token
    /// greater than `after`, and returns it.
    pub async fn wait_leader(&self, after: u64, within: Duration) -> Lease {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            let now = self.now().await;
            if let Some(lease) = self.leader_lease().await
                && lease.holder_at(now).is_some()
                && lease.token.to_store() > store_token(after)
            {
                return lease;
            }
            assert!(tokio::time::Instant::now() < deadline, "no new leader within {within:?}");
            tokio::time::sleep(POLL).await;
        }
    }

    /// The current scheduler leader's node name and token.
    pub async fn leader(&self) -> (String, u64) {
        let lease = self.wait_leader(0, PATIENCE).await;
        let holder = lease.holder.as_ref().expect("a holder").as_str().to_string();
        (holder, token_of(&lease))
    }

    /// Asserts that the leader term under `lease` began as an expired takeover (I8). The
    /// record is awaited for up to the term's TTL: a store that writes the leader change after
    /// the grant (Consul: the key is acquired, then its token and the change are recorded) can
    /// show the term one round trip before its record.
    pub async fn assert_expired_takeover(&self, lease: &Lease) {
        let params =
            HistoryParams { lease: Some(lease.name.clone()), limit: 1000, ..Default::default() };
        let deadline = tokio::time::Instant::now() + self.setup.ttl;
        let term = loop {
            let history =
                self.leases.history(params.clone()).await.expect("reading the leader history");
            if let Some(term) = history.items.iter().find(|change| change.token == lease.token) {
                break term.clone();
            }
            let now = tokio::time::Instant::now();
            assert!(now < deadline, "no history record of {lease:?} within its TTL: {history:?}");
            tokio::time::sleep(POLL).await;
        };
        assert_eq!(term.reason, ChangeReason::ExpiredTakeover, "{term:?}");
        assert_eq!(term.at, lease.acquired_at, "{term:?}");
    }

    /// Waits until `count` more fires of `tick` than `before` succeeded; answers how many did.
    pub async fn wait_ticks(&self, before: usize, count: usize) -> usize {
        self.wait_record("more successful ticks", PATIENCE, |executions| {
            let succeeded = succeeded(executions, TICK).count();
            (succeeded >= before + count).then_some(succeeded)
        })
        .await
    }

    /// Stops every live node gracefully (paused ones must have been resumed), then audits
    /// the record like `baton audit` and checks the ledger and invariant I6:
    ///
    /// - the audit of the window between the first fire on record and the last finds no
    ///   duplicate and no unexplained missing fire;
    /// - no accepted ledger write is stale;
    /// - every start a node reported is a claim on record under the same token;
    /// - a handler that reported success (`RAN`) belongs to an execution that succeeded, or to
    ///   one abandoned before it could report back; every succeeded execution reported `RAN`;
    /// - at most one attempt of a fire succeeded, and none started after it (a succeeded
    ///   execution never runs again);
    /// - an attempt was abandoned only once its heartbeat was older than `abandon_after` on
    ///   the store's clock, and is retried with a greater token only as the job's policy
    ///   allows: `tick` (one attempt) never, `slow` up to its attempts.
    pub async fn finish(mut self, measured: &mut Measured) {
        for node in self.nodes.iter_mut().filter(|n| !self.gone.contains(&n.name)) {
            node.ask_to_quit().await;
        }
        for node in self.nodes.iter_mut().filter(|n| !self.gone.contains(&n.name)) {
            node.stopped(PATIENCE).await;
        }
        let executions = self.executions().await;
        measured.audit = self.audit(&executions).await;
        measured.ledger = self.ledger.check().await.expect("checking the ledger");
        assert_eq!(measured.ledger.stale_accepted, 0, "stale writes accepted: {measured:?}");
        let reported = |kind: &str| -> Vec<Run> {
            self.nodes.iter().flat_map(|node| node.runs(kind)).collect()
        };
        check_once_per_fire(&executions, &reported("STARTED"), &reported("RAN"));
        check_retries(&executions);
    }

    async fn audit(&self, executions: &[Execution]) -> String {
        let jobs: Vec<Job> = all_jobs(&*self.jobs, None).await.expect("listing jobs");
        let fires = executions.iter().filter(|e| e.trigger == Trigger::Schedule);
        let since = fires.map(|e| e.scheduled_at).min().expect("fires on record");
        let last_tick = executions.iter().filter(|e| e.job.as_str() == TICK);
        let last = last_tick.map(|e| e.scheduled_at).max().expect("ticks on record");
        let until = StoreTime::from_millis(last.as_millis() + 1);
        let report = audit(&jobs, executions, &[], since, until, Duration::from_secs(5));
        assert!(report.is_clean(), "the audit of [{since}, {until}) is not clean: {report:#?}");
        let owed = (last.as_millis() - since.as_millis()) / 1000;
        assert!(report.expected as i64 > owed, "too few fires owed: {report:?}");
        format!(
            "[{since}, {until}): {} fires owed, {} ran, {} skipped or missed, {} late, \
             max lag {:?}, 0 duplicates, 0 missing",
            report.expected,
            report.ran,
            report.explained,
            report.late.len(),
            report.max_lag
        )
    }
}

/// Checks that each fire succeeded at most once and never ran again after it did, against
/// the record and the nodes' reports.
fn check_once_per_fire(executions: &[Execution], started: &[Run], ran: &[Run]) {
    let by_attempt: HashMap<(&str, StoreTime, u32), &Execution> =
        executions.iter().map(|e| ((e.job.as_str(), e.scheduled_at, e.attempt), e)).collect();
    let record_of = |run: &Run| {
        by_attempt
            .get(&(run.job.as_str(), run.fire, run.attempt))
            .copied()
            .unwrap_or_else(|| panic!("a node ran {run:?}, which is not on record"))
    };
    for run in started {
        let execution = record_of(run);
        assert_eq!(execution.token.map(token_u64), Some(run.token), "{run:?} vs {execution:?}");
    }
    for run in ran {
        let status = record_of(run).status;
        assert!(
            matches!(status, ExecutionStatus::Succeeded | ExecutionStatus::Abandoned),
            "{run:?} reported success but is {status} on record"
        );
    }
    let mut success: HashMap<(&str, StoreTime), &Execution> = HashMap::new();
    for execution in executions.iter().filter(|e| e.status == ExecutionStatus::Succeeded) {
        let fire = (execution.job.as_str(), execution.scheduled_at);
        if let Some(other) = success.insert(fire, execution) {
            panic!("two attempts of one fire succeeded: {other:?} and {execution:?}");
        }
        let token = execution.token.map(token_u64);
        assert!(
            ran.iter().any(|run| Some(run.token) == token),
            "{execution:?} succeeded, but its node never reported its handler's success"
        );
    }
    for run in started {
        if let Some(done) = success.get(&(run.job.as_str(), run.fire)) {
            assert!(
                run.attempt <= done.attempt,
                "{run:?} started after its fire succeeded: {done:?}"
            );
        }
    }
    for execution in executions {
        if let Some(done) = success.get(&(execution.job.as_str(), execution.scheduled_at)) {
            assert!(
                execution.attempt <= done.attempt,
                "{execution:?} was recorded after its fire succeeded: {done:?}"
            );
        }
    }
}

/// Checks the retries of abandoned attempts against each job's policy.
fn check_retries(executions: &[Execution]) {
    for execution in executions {
        assert!(
            execution.job.as_str() != TICK || execution.attempt == 1,
            "tick allows one attempt, yet {execution:?} exists"
        );
        if execution.status != ExecutionStatus::Abandoned {
            continue;
        }
        // Abandoned by the store's clock, only once its heartbeat was older than the limit.
        let finished = execution.finished_at.expect("an abandoned execution has finished");
        let last_beat = execution.heartbeat_at.or(execution.started_at).expect("it started");
        let silent = finished.saturating_since(last_beat);
        assert!(silent >= node::ABANDON_AFTER, "abandoned after {silent:?}: {execution:?}");
        let next = executions.iter().find(|e| {
            e.job == execution.job
                && e.scheduled_at == execution.scheduled_at
                && e.attempt == execution.attempt + 1
        });
        let allowed = execution.job.as_str() == SLOW && execution.attempt < node::SLOW_ATTEMPTS;
        match next {
            Some(retry) => {
                assert!(allowed, "{execution:?} was retried against its policy: {retry:?}");
                assert_eq!(retry.trigger, Trigger::Retry, "{retry:?}");
                if let Some(token) = retry.token {
                    assert!(Some(token) > execution.token, "{execution:?} then {retry:?}");
                }
            }
            None => assert!(!allowed, "{execution:?} was abandoned and not retried"),
        }
    }
}

fn succeeded<'a>(executions: &'a [Execution], job: &'a str) -> impl Iterator<Item = &'a Execution> {
    executions
        .iter()
        .filter(move |e| e.job.as_str() == job && e.status == ExecutionStatus::Succeeded)
}

fn token_u64(token: baton::FencingToken) -> u64 {
    u64::try_from(token.to_store()).expect("tokens are positive")
}

fn token_of(lease: &Lease) -> u64 {
    token_u64(lease.token)
}

fn store_token(token: u64) -> i64 {
    i64::try_from(token).expect("a token fits an i64")
}

/// A running attempt `attempt` of a `slow` fire.
fn running_slow(executions: &[Execution], attempt: u32) -> Option<Execution> {
    executions
        .iter()
        .find(|e| {
            e.job.as_str() == SLOW && e.attempt == attempt && e.status == ExecutionStatus::Running
        })
        .cloned()
}

/// The attempt `attempt` of the fire of `of`.
fn attempt_of<'a>(
    executions: &'a [Execution],
    of: &Execution,
    attempt: u32,
) -> Option<&'a Execution> {
    executions
        .iter()
        .find(|e| e.job == of.job && e.scheduled_at == of.scheduled_at && e.attempt == attempt)
}

fn run_of(execution: &Execution) -> Run {
    run_of_any(execution).expect("a claimed execution has a token")
}

/// The execution as a node reports it, once claimed.
fn run_of_any(execution: &Execution) -> Option<Run> {
    Some(Run {
        job: execution.job.as_str().to_string(),
        fire: execution.scheduled_at,
        attempt: execution.attempt,
        token: execution.token.map(token_u64)?,
    })
}

fn node_of(execution: &Execution) -> String {
    execution.node.as_ref().expect("a claimed execution has a node").as_str().to_string()
}

impl Setup {
    /// How long the fail-over of a killed or paused leader may take: its lease's TTL, the
    /// contenders' retry period, and the allowance for a busy machine.
    pub fn failover_bound(&self) -> Duration {
        self.ttl + retry_with_jitter(self.ttl) + MEASUREMENT_ALLOWANCE
    }
}

/// `kill -9` of the scheduler leader among three nodes: another node takes over within
/// TTL + retry, fires resume under it (those due meanwhile run late or are recorded with
/// their policy), and the audit of the whole window is clean.
pub async fn killed_leader_is_replaced_and_fires_resume(setup: &Setup) -> Measured {
    let mut cluster = setup.cluster().await;
    let mut measured = Measured::default();
    cluster.start(&["a"], &[TICK, SLOW]).await;
    cluster.node("a").expect("LEADING", PATIENCE).await;
    cluster.start(&["b", "c"], &[TICK, SLOW]).await;
    let ticks = cluster.wait_ticks(0, 3).await;
    let (leader, token) = cluster.leader().await;
    cluster.kill9(&leader).await;
    let killed = cluster.now().await;
    let lease = cluster.wait_leader(token, PATIENCE).await;
    let failover = lease.acquired_at.saturating_since(killed);
    measured.failover = Some(failover);
    assert_ne!(lease.holder.as_ref().map(|h| h.as_str()), Some(leader.as_str()));
    let bound = setup.failover_bound();
    assert!(failover <= bound, "fail-over took {failover:?}, more than {bound:?}");
    cluster.assert_expired_takeover(&lease).await;
    let resumed = cluster
        .wait_record("a tick scheduled after the kill that succeeded", PATIENCE, |executions| {
            let after = succeeded(executions, TICK).filter(|e| e.scheduled_at > killed);
            after.filter_map(|e| e.started_at).min()
        })
        .await;
    measured.fires_resumed = Some(resumed.saturating_since(killed));
    cluster.wait_ticks(ticks, 3).await;
    cluster.finish(&mut measured).await;
    measured
}

/// `kill -9` of a worker (not the leader) mid-way through a `slow` execution: the leader
/// abandons it once its heartbeat is older than `abandon_after` on the store's clock, and a
/// retry with a greater token runs on another node and succeeds; the audit is clean.
pub async fn killed_worker_execution_is_abandoned_and_retried(setup: &Setup) -> Measured {
    let mut cluster = setup.cluster().await;
    let mut measured = Measured::default();
    // The leader runs ticks only, so that the slow job runs on the other two.
    cluster.start(&["a"], &[TICK]).await;
    cluster.node("a").expect("LEADING", PATIENCE).await;
    cluster.start(&["b", "c"], &[TICK, SLOW]).await;
    let first = cluster
        .wait_record("a running slow execution", PATIENCE + node::SLOW_EVERY, |executions| {
            running_slow(executions, 1)
        })
        .await;
    let (worker, run) = (node_of(&first), run_of(&first));
    cluster.node(&worker).expect_this_run("WROTE", &run, Some("begin"), PATIENCE).await;
    cluster.kill9(&worker).await;
    let killed = cluster.now().await;
    let (abandoned, retry) = cluster
        .wait_record("the abandonment and a running retry", PATIENCE, |executions| {
            let abandoned = attempt_of(executions, &first, 1)
                .filter(|e| e.status == ExecutionStatus::Abandoned)?;
            let retry = attempt_of(executions, &first, 2).filter(|e| e.started_at.is_some())?;
            Some((abandoned.clone(), retry.clone()))
        })
        .await;
    let finished = abandoned.finished_at.expect("an abandoned execution has finished");
    measured.abandoned = Some(finished.saturating_since(killed));
    measured.retried = retry.started_at.map(|at| at.saturating_since(killed));
    assert!(retry.token > abandoned.token, "{abandoned:?} then {retry:?}");
    assert_ne!(node_of(&retry), worker, "the retry ran on the killed node: {retry:?}");
    assert_eq!(retry.trigger, Trigger::Retry);
    let within = PATIENCE + node::SLOW_RUN;
    cluster.node(&node_of(&retry)).expect_this_run("RAN", &run_of(&retry), None, within).await;
    cluster
        .wait_record("the retry's success", PATIENCE, |executions| {
            attempt_of(executions, &first, 2)
                .filter(|e| e.status == ExecutionStatus::Succeeded)
                .map(|_| ())
        })
        .await;
    let ticks = succeeded(&cluster.executions().await, TICK).count();
    cluster.wait_ticks(ticks, 2).await;
    cluster.finish(&mut measured).await;
    measured
}

/// `SIGSTOP` of the scheduler leader past its TTL, mid-way through a `slow` execution and
/// inside a `tick` handler: another node takes over (an expired takeover, after the paused
/// lease expired on the store's clock) and abandons both executions (store time); the slow one
/// is retried with a greater token, the tick (one attempt allowed) is not. After `SIGCONT`
/// the resumed node does not lead under its old term, the late writes of both abandoned
/// attempts are rejected by the fence (newer tokens wrote), no attempt it started before the
/// pause writes again, and the audit is clean.
pub async fn paused_leader_is_replaced_and_its_late_write_fenced(setup: &Setup) -> Measured {
    let mut cluster = setup.cluster().await;
    let mut measured = Measured::default();
    // Alone, the leader runs the first slow fire itself.
    cluster.start(&["a"], &[TICK, SLOW]).await;
    let (leading, _) = cluster.node("a").expect("LEADING", PATIENCE).await;
    let first = cluster.node("a").expect_run("STARTED", SLOW, PATIENCE + node::SLOW_EVERY).await;
    cluster.node("a").expect_this_run("WROTE", &first, Some("begin"), PATIENCE).await;
    // a stops in its next tick handler, before that handler's write.
    let stopping = cluster.node("a").pause_on("STOP-IN-TICK", PATIENCE).await;
    let tick = Run::of(&stopping).expect("a stops in a tick handler");
    let paused = cluster.now().await;
    let frozen = cluster.leader_lease().await.expect("a's lease");
    cluster.start(&["b", "c"], &[TICK, SLOW]).await;
    let lease = cluster.wait_leader(leading.token().expect("a token"), PATIENCE).await;
    assert!(lease.acquired_at >= frozen.expires_at, "taken over before a's lease expired");
    cluster.assert_expired_takeover(&lease).await;
    measured.failover = Some(lease.acquired_at.saturating_since(paused));
    let abandoned = |run: &Run| {
        let run = run.clone();
        move |e: &&Execution| {
            run_of_any(e) == Some(run.clone()) && e.status == ExecutionStatus::Abandoned
        }
    };
    let (gone, retry) = cluster
        .wait_record("a running retry of a's slow attempt", PATIENCE, |executions| {
            let gone = executions.iter().find(abandoned(&first))?;
            let retry = attempt_of(executions, gone, 2).filter(|e| e.started_at.is_some())?;
            Some((gone.clone(), retry.clone()))
        })
        .await;
    measured.abandoned = gone.finished_at.map(|at| at.saturating_since(paused));
    cluster
        .wait_record("the abandonment of a's tick", PATIENCE, |executions| {
            executions.iter().find(abandoned(&tick)).map(|_| ())
        })
        .await;
    measured.retried = retry.started_at.map(|at| at.saturating_since(paused));
    let retry_run = run_of(&retry);
    assert!(retry_run.token > first.token, "{first:?} then {retry_run:?}");
    let retried_on = node_of(&retry);
    cluster.node(&retried_on).expect_this_run("WROTE", &retry_run, Some("begin"), PATIENCE).await;
    // Every attempt a started before the pause holds a token no greater than its held tick's
    // or its slow attempt's (executions draw their tokens from the state store, which need not
    // be the lease store): once another node wrote each job's ledger under a greater token,
    // a's late writes must fail.
    let before_pause = tick.token.max(first.token);
    cluster
        .wait_record("a tick claimed after a's that succeeded", PATIENCE, |executions| {
            let newer = |e: &&Execution| e.token.map(token_u64) > Some(before_pause);
            succeeded(executions, TICK).find(newer).map(|_| ())
        })
        .await;
    let stale = |event: &node::Event| Run::of(event).is_some_and(|run| run.token <= before_pause);
    let term = token_of(&lease);
    cluster.node("a").drain();
    cluster.node("a").resume();
    let rejected = |run: &Run, step: &'static str| {
        let run = run.clone();
        move |e: &node::Event| {
            e.kind == "REJECTED" && node::step(e) == step && Run::of(e) == Some(run.clone())
        }
    };
    let (late_end, late_tick) = (rejected(&first, "end"), rejected(&tick, "once"));
    cluster.node("a").expect_all(&[&late_end, &late_tick], PATIENCE).await;
    let within = PATIENCE + node::SLOW_RUN;
    cluster.node(&retried_on).expect_this_run("RAN", &retry_run, None, within).await;
    let ticks = succeeded(&cluster.executions().await, TICK).count();
    cluster.wait_ticks(ticks, 3).await;
    let after_resume: Vec<node::Event> = {
        let history = cluster.node("a").history();
        let resumed = history.iter().position(|e| e.kind == "RESUMED").expect("a resumed");
        history[resumed..].to_vec()
    };
    for event in &after_resume {
        // a may lead again later, in a term of its own.
        let old_term = event.kind == "LEADING" && event.token() <= Some(term);
        assert!(!old_term, "a led under an old term after resuming: {after_resume:?}");
        assert!(event.kind != "WROTE" || !stale(event), "a stale write was accepted: {event:?}");
    }
    cluster.finish(&mut measured).await;
    assert!(measured.ledger.rejected >= 2, "{measured:?}");
    measured
}
