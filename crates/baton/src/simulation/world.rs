//! One simulated run: three nodes over the in-memory stores, each through a link of its own,
//! doing the work of a scenario (its [`Incarnation`]) while a schedule drawn from the seed
//! cuts, slows, degrades and flaps links and loses their answers, pauses the work between its
//! check and its write, crashes and restarts nodes and asks them to step down; in some runs
//! every node goes down at once for hours. A run starts on an ordinary night or a minute before
//! a change of London's clocks. Then every fault heals and the run goes on calmly for a while,
//! and the stores' records are read for the checks.

use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use baton_core::cluster::{BatchListParams, Partition, PartitionListParams};
use baton_core::job::ExecutionListParams;
use baton_core::memory::{MemoryClusterStore, MemoryJobStore, MemoryLeaseStore};
use baton_core::time::Clock;
use baton_core::{ClusterStore, HistoryParams, JobStore, LeaseStore};
use tokio::time::Instant;

use super::clock::{EPOCHS, VirtualClock};
use super::dice::Dice;
use super::history::{Event, Fault, Grant, Recorder, Run};
use super::ledger::Ledger;
use super::net::Link;

/// The cluster's node slots.
const SLOTS: [usize; 3] = [0, 1, 2];
/// How long the fault schedule runs.
const FAULTS_FOR: Duration = Duration::from_secs(120);
/// How long the run goes on after every fault healed.
const CALM_FOR: Duration = Duration::from_secs(12);
/// The share of the fault schedule's turns that also start the scenario's occasional work.
const POKE_SHARE: f64 = 0.15;
/// How often a fault is aimed at the node that acted last rather than at any node.
const AIM_AT_THE_ACTING: f64 = 0.6;
/// The share of runs in which every node goes down at once, some time into the fault
/// schedule, for [`OUTAGE_FOR`]: far beyond every misfire threshold and lease.
const OUTAGE_SHARE: f64 = 0.25;
/// How long such an outage lasts, in milliseconds: one to six hours.
const OUTAGE_FOR: std::ops::Range<u64> = 3_600_000..21_600_000;

/// What the nodes share: the stores, the resources, the clock, the dice and the record.
pub(super) struct World {
    pub(super) clock: VirtualClock,
    pub(super) dice: Dice,
    pub(super) leases: Arc<MemoryLeaseStore>,
    pub(super) jobs: Arc<MemoryJobStore>,
    pub(super) cluster: Arc<MemoryClusterStore>,
    ledger: Ledger,
    recorder: Recorder,
    /// The slot of the node that acted last: the fault schedule aims at it more often.
    acting: Mutex<Option<usize>>,
}

impl World {
    fn new(seed: u64) -> Self {
        let dice = Dice::new(seed);
        let clock = VirtualClock::start(dice.pick(&EPOCHS));
        World {
            clock,
            dice,
            leases: Arc::new(MemoryLeaseStore::with_clock(Arc::new(clock))),
            jobs: Arc::new(MemoryJobStore::with_clock(Arc::new(clock))),
            cluster: Arc::new(MemoryClusterStore::with_clock(Arc::new(clock))),
            ledger: Ledger::default(),
            recorder: Recorder::default(),
            acting: Mutex::default(),
        }
    }

    /// The store's clock, in milliseconds.
    pub(super) fn now(&self) -> i64 {
        self.clock.now().as_millis()
    }

    fn record_fault(&self, node: &str, fault: Fault) {
        self.recorder.record(Event::Fault { at: self.now(), node: node.into(), fault });
    }

    /// One step of work under a claim on `key`, once its holder checked the claim: records the
    /// act and writes to the key's fenced resource under `token`. If the schedule left a pause
    /// for this node, the work stops for that long and the node is cut off from the store as a
    /// stopped process is (nothing it would send arrives), and the write lands after the pause
    /// even if the work is cancelled meanwhile, as a write already on its way does.
    pub(super) async fn act(self: &Arc<Self>, node: &NodeRef, key: &str, token: u64) {
        let at = self.now();
        self.recorder.record(Event::Acted { at, node: node.name.clone(), key: key.into(), token });
        *self.acting.lock().unwrap_or_else(|e| e.into_inner()) = Some(node.slot);
        let paused = node.pause.lock().unwrap_or_else(|e| e.into_inner()).take();
        let Some(paused) = paused else {
            return self.write(&node.name, key, token);
        };
        node.link.cut(paused);
        let (world, name, key) = (self.clone(), node.name.clone(), key.to_string());
        tokio::spawn(async move {
            tokio::time::sleep(paused).await;
            world.write(&name, &key, token);
        });
        tokio::time::sleep(paused).await;
    }

    /// The work of one claimed execution or partition on `key`: 1 to 80 steps of 10 to 60 ms
    /// (up to about 5 s, longer than a claim outlives its last confirmed heartbeat), each an
    /// [`act`](Self::act) once `check` confirmed the claim; fails with why it stopped.
    pub(super) async fn work(
        self: &Arc<Self>,
        node: &NodeRef,
        key: &str,
        token: u64,
        check: impl Fn() -> baton_core::Result<()>,
    ) -> Result<(), String> {
        for _ in 0..self.dice.range(1..80) {
            tokio::time::sleep(self.dice.millis(10..60)).await;
            check().map_err(|err| err.to_string())?;
            self.act(node, key, token).await;
        }
        Ok(())
    }

    fn write(&self, node: &str, key: &str, token: u64) {
        let accepted = self.ledger.write(key, token);
        let (at, node, key) = (self.now(), node.into(), key.into());
        self.recorder.record(Event::Wrote { at, node, key, token, accepted });
    }
}

/// What a node's work needs to know of its node: who it is, and the pause the schedule left
/// for it.
#[derive(Debug, Clone)]
pub(super) struct NodeRef {
    slot: usize,
    /// The node and its incarnation, such as `n1.2`.
    pub(super) name: String,
    pause: Arc<Mutex<Option<Duration>>>,
    link: Link,
}

/// The work of one incarnation of a node in a scenario.
pub(super) trait Incarnation: Sized {
    /// Whether the scenario's work goes on all the time (a leader's, a scheduler's), so that
    /// something must be acting at any time after the calm, rather than in batches that end.
    const CONTINUOUS: bool = true;

    /// Starts the work of `node` over the world's stores seen through `link`.
    fn start(world: &Arc<World>, node: NodeRef, link: &Link) -> impl Future<Output = Self>;

    /// Starts the scenario's occasional work from this node (a batch), without waiting.
    fn poke(&self) {}

    /// Asks the node to step down from what it leads, without waiting.
    fn step_down(&self);

    /// Stops the node at once, as a crash does (its link is already dead).
    fn crash(self);

    /// Stops the node gracefully.
    fn stop(self) -> impl Future<Output = ()>;
}

/// A node slot, running or crashed.
struct Node<I> {
    slot: usize,
    name: String,
    incarnations: u32,
    running: Option<(Link, I)>,
    down_until: Option<Instant>,
    pause: Arc<Mutex<Option<Duration>>>,
}

impl<I: Incarnation> Node<I> {
    fn new(slot: usize) -> Self {
        Node {
            slot,
            name: format!("n{slot}"),
            incarnations: 0,
            running: None,
            down_until: None,
            pause: Arc::default(),
        }
    }

    async fn start(&mut self, world: &Arc<World>) {
        self.incarnations += 1;
        let name = format!("{}.{}", self.name, self.incarnations);
        let link = Link::new(world.dice.clone());
        let node = NodeRef { slot: self.slot, name, pause: self.pause.clone(), link: link.clone() };
        let incarnation = I::start(world, node, &link).await;
        self.running = Some((link, incarnation));
        self.down_until = None;
    }

    /// Crashes the node if it runs, and keeps it down for `restart_after` from now.
    fn crash(&mut self, restart_after: Duration) {
        if let Some((link, incarnation)) = self.running.take() {
            link.kill();
            incarnation.crash();
        }
        self.down_until = Some(Instant::now() + restart_after);
    }
}

/// Runs one scenario for `seed` to its end and answers what happened.
pub(super) async fn run<I: Incarnation>(seed: u64) -> Run {
    let world = Arc::new(World::new(seed));
    let mut nodes: Vec<Node<I>> = SLOTS.into_iter().map(Node::new).collect();
    for node in &mut nodes {
        node.start(&world).await;
    }
    if let Some((_, first)) = &nodes[0].running {
        first.poke();
    }
    let mut outage_at = world.dice.chance(OUTAGE_SHARE).then(|| world.dice.millis(10_000..100_000));
    let mut outage = Duration::ZERO;
    while world.clock.elapsed() < FAULTS_FOR + outage {
        tokio::time::sleep(world.dice.millis(500..4_000)).await;
        if outage_at.is_some_and(|at| world.clock.elapsed() >= at) {
            outage_at = None;
            outage = world.dice.millis(OUTAGE_FOR);
            for node in &mut nodes {
                world.record_fault(&node.name, Fault::Outage);
                node.crash(outage);
            }
            tokio::time::sleep(outage).await;
        }
        for node in &mut nodes {
            if node.down_until.is_some_and(|until| Instant::now() >= until) {
                world.record_fault(&node.name, Fault::Restart);
                node.start(&world).await;
            }
        }
        let acting = *world.acting.lock().unwrap_or_else(|e| e.into_inner());
        let slot = match acting {
            Some(slot) if world.dice.chance(AIM_AT_THE_ACTING) => slot,
            _ => world.dice.pick(&SLOTS),
        };
        if world.dice.chance(POKE_SHARE)
            && let Some((_, incarnation)) = &nodes[world.dice.pick(&SLOTS)].running
        {
            incarnation.poke();
        }
        inject(&world, &mut nodes[slot]);
    }
    let calm_from = world.now();
    for node in &mut nodes {
        match &node.running {
            Some((link, _)) => link.heal(),
            None => node.start(&world).await,
        }
    }
    if let Some((_, first)) = &nodes[0].running {
        first.poke();
    }
    tokio::time::sleep(CALM_FOR).await;
    let ended_at = world.now();
    for node in nodes {
        if let Some((_, incarnation)) = node.running {
            incarnation.stop().await;
        }
    }
    Run {
        events: world.recorder.events(),
        terms: terms(&*world.leases).await,
        executions: executions(&*world.jobs).await,
        partitions: partitions(&*world.cluster).await,
        calm_from,
        ended_at,
        continuous: I::CONTINUOUS,
    }
}

/// One fault, drawn from the dice, on `node`.
fn inject<I: Incarnation>(world: &World, node: &mut Node<I>) {
    let span = world.dice.millis(200..4_000);
    let fault = world.dice.pick(&Fault::DRAWN);
    let Some((link, incarnation)) = &node.running else { return };
    world.record_fault(&node.name, fault);
    match fault {
        Fault::Cut => link.cut(span),
        Fault::Slow => link.slow(span),
        Fault::LoseAnswers => link.lose_answers(span),
        Fault::Degrade => link.degrade(span),
        Fault::Flap => link.flap(span * 2, world.dice.millis(200..1_000)),
        Fault::Pause => *node.pause.lock().unwrap_or_else(|e| e.into_inner()) = Some(span),
        Fault::StepDown => incarnation.step_down(),
        Fault::Crash => node.crash(span),
        Fault::Restart | Fault::Outage => unreachable!("{fault:?} is not drawn for one node"),
    }
}

/// Every term of every lease, from the store's leader history.
async fn terms(leases: &dyn LeaseStore) -> Vec<Grant> {
    let mut terms = Vec::new();
    let mut after = None;
    loop {
        let params = HistoryParams { lease: None, after, limit: 1000 };
        let page = leases.history(params).await.expect("the memory store's history");
        terms.extend(page.items.into_iter().map(|change| Grant {
            key: change.lease.to_string(),
            at: change.at.as_millis(),
            token: change.token.get(),
            holder: change.holder.to_string(),
        }));
        match page.next {
            Some(next) => after = Some(next),
            None => return terms,
        }
    }
}

/// Every execution record, oldest first.
async fn executions(jobs: &dyn JobStore) -> Vec<baton_core::Execution> {
    let params = ExecutionListParams { limit: 1000, ..Default::default() };
    baton_core::job::all_executions(jobs, params).await.expect("the memory store's executions")
}

/// Every partition of every batch.
async fn partitions(cluster: &dyn ClusterStore) -> Vec<Partition> {
    let params = BatchListParams { limit: 1000, ..Default::default() };
    let batches = cluster.batch_list(params).await.expect("the memory store's batches");
    let mut partitions = Vec::new();
    for batch in batches.items {
        let params = PartitionListParams { limit: 1000, ..PartitionListParams::new(batch.id) };
        let page = cluster.partition_list(params).await.expect("the memory store's partitions");
        partitions.extend(page.items);
    }
    partitions
}
