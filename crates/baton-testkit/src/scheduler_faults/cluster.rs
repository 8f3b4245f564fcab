//! The scheduler's fault harness: three (or so) `baton-test-node` processes over one store,
//! the test's view of that store, and the checks every scenario ends with.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use baton::core::job::{ExecutionListParams, all_executions, all_jobs, audit};
use baton::core::{Execution, ExecutionStatus, Job, JobStore, Trigger};
use baton::{ChangeReason, HistoryParams, LeaderChange, Lease, LeaseName, LeaseStore, StoreTime};

use crate::faults::PATIENCE;
use crate::ledger::{Ledger, LedgerReport};
use crate::node::{self, NodeProcess, Run, SLOW, TICK};
use crate::node_args::NodeSetup;
use crate::terms::{self, holder_of, token_of};

/// The lease whose holder is the scheduler leader (the scheduler's default).
pub const SCHEDULER_LEASE: &str = "baton-scheduler";
/// How often the harness reads the store while it waits for something.
const POLL: Duration = Duration::from_millis(50);

/// What a scenario measured, on the stores' clocks.
#[derive(Debug, Clone, Default)]
pub struct Measured {
    /// From the fault to a new scheduler leader's acquisition, on the lease store's clock.
    pub failover: Option<Duration>,
    /// From the fault to the start of the first fire scheduled after it, on the state store's
    /// clock (as are the two below).
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
            "fail-over {}, fires resumed {}, abandoned {}, retried {} (after the fault, stores' \
             clocks); audit {}; ledger {} accepted, {} rejected, {} stale accepted",
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
    setup: NodeSetup,
    jobs: Arc<dyn JobStore>,
    leases: Arc<dyn LeaseStore>,
    ledger: Ledger,
    nodes: Vec<NodeProcess>,
    /// Nodes killed or shut down: they cannot be asked to quit.
    gone: Vec<String>,
}

impl Cluster {
    /// Migrates the store, creates the ledger, and connects the test's own view of the
    /// record, for nodes that `setup` runs.
    pub async fn new(setup: &NodeSetup) -> Cluster {
        let backend =
            baton::connect_split(&setup.leases, &setup.url).await.expect("connecting to the store");
        backend.migrate().await.expect("migrating the store");
        let ledger = Ledger::open(&setup.url).await.expect("creating the ledger");
        Cluster {
            setup: setup.clone(),
            jobs: backend.jobs(),
            leases: backend.leases(),
            ledger,
            nodes: Vec::new(),
            gone: Vec::new(),
        }
    }

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

    /// Starts node `a`, waits until it leads, then starts `b` and `c`: three nodes running
    /// `tick` and `slow`, the first of them the leader.
    pub async fn start_led_by_a(&mut self) {
        self.start(&["a"], &[TICK, SLOW]).await;
        self.node("a").expect("LEADING", PATIENCE).await;
        self.start(&["b", "c"], &[TICK, SLOW]).await;
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

    /// Shuts node `name` down gracefully and waits until it has exited.
    pub async fn quit(&mut self, name: &str) {
        let node = self.node(name);
        node.ask_to_quit().await;
        node.stopped(PATIENCE).await;
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

    /// The state store's clock now: the clock of the executions' times.
    pub async fn now(&self) -> StoreTime {
        self.jobs.now().await.expect("reading the store's clock")
    }

    /// The lease store's clock now: the clock of a term's times. Beside a lease-only store it
    /// is not the state store's.
    pub async fn lease_now(&self) -> StoreTime {
        self.leases.now().await.expect("reading the lease store's clock")
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

    /// Waits until the store shows the scheduler lease held (at the lease store's time) under
    /// a token greater than `after`, and returns it.
    pub async fn wait_leader(&self, after: u64, within: Duration) -> Lease {
        let name: LeaseName = SCHEDULER_LEASE.parse().expect("a lease name");
        terms::wait_term(&*self.leases, &name, after, within).await
    }

    /// The current scheduler leader's node name and token.
    pub async fn leader(&self) -> (String, u64) {
        let lease = self.wait_leader(0, PATIENCE).await;
        (holder_of(&lease), token_of(&lease))
    }

    /// The leader changes of the scheduler lease after the term under token `after`, oldest
    /// first.
    pub async fn leader_changes_after(&self, after: u64) -> Vec<LeaderChange> {
        let lease: LeaseName = SCHEDULER_LEASE.parse().expect("a lease name");
        let params = HistoryParams { lease: Some(lease), limit: 1000, ..Default::default() };
        let history = self.leases.history(params).await.expect("reading the leader history");
        let mut changes: Vec<LeaderChange> =
            history.items.into_iter().filter(|change| token_u64(change.token) > after).collect();
        changes.sort_by_key(|change| change.token);
        changes
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

pub(super) fn succeeded<'a>(
    executions: &'a [Execution],
    job: &'a str,
) -> impl Iterator<Item = &'a Execution> {
    executions
        .iter()
        .filter(move |e| e.job.as_str() == job && e.status == ExecutionStatus::Succeeded)
}

pub(super) fn token_u64(token: baton::FencingToken) -> u64 {
    u64::try_from(token.to_store()).expect("tokens are positive")
}

/// The execution as a node reports it, once claimed.
pub(super) fn run_of_any(execution: &Execution) -> Option<Run> {
    Some(Run {
        job: execution.job.as_str().to_string(),
        fire: execution.scheduled_at,
        attempt: execution.attempt,
        token: execution.token.map(token_u64)?,
    })
}
