//! One simulated run: three nodes campaigning for one lease over the in-memory store, each
//! through a link of its own, with a leader writing to a fenced resource as long as its term
//! is valid, while a schedule drawn from the seed cuts, slows, degrades and flaps links and loses
//! their answers, pauses leaders between their check and their write, crashes and restarts nodes
//! and asks leaders to step down. Then every fault heals and the run goes on calmly for a while.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use baton_core::layer::Layered;
use baton_core::memory::MemoryLeaseStore;
use baton_core::time::Clock;
use baton_core::{HistoryParams, HolderId, LeaseName, LeaseStore};
use tokio::sync::watch;
use tokio::task::JoinHandle;
use tokio::time::Instant;

use super::clock::VirtualClock;
use super::history::{Event, Fault, Grant, Recorder, Run};
use super::ledger::Ledger;
use super::net::Link;
use crate::elector::{Campaign, Elector, ElectorConfig, Leadership};

/// Nodes in the cluster.
const NODES: usize = 3;
/// The lease's TTL; the elector's timing is scaled from it.
const TTL: Duration = Duration::from_secs(3);
/// How long the fault schedule runs.
const FAULTS_FOR: Duration = Duration::from_secs(120);
/// How long the run goes on after every fault healed.
const CALM_FOR: Duration = Duration::from_secs(12);
/// How often a fault is aimed at the node that acted last rather than at any node.
const AIM_AT_LEADER: f64 = 0.6;

/// The seeded source of every choice the simulation makes.
#[derive(Debug, Clone)]
pub(super) struct Dice(Arc<Mutex<fastrand::Rng>>);

impl Dice {
    fn new(seed: u64) -> Self {
        Dice(Arc::new(Mutex::new(fastrand::Rng::with_seed(seed))))
    }

    fn rng(&self) -> std::sync::MutexGuard<'_, fastrand::Rng> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A number in `range`.
    pub(super) fn range(&self, range: std::ops::Range<u64>) -> u64 {
        self.rng().u64(range)
    }

    /// True with probability `share`.
    pub(super) fn chance(&self, share: f64) -> bool {
        self.rng().f64() < share
    }

    fn millis(&self, range: std::ops::Range<u64>) -> Duration {
        Duration::from_millis(self.range(range))
    }
}

/// What the nodes share: the store, the resource, the clock, the dice and the record.
struct World {
    clock: VirtualClock,
    dice: Dice,
    store: Arc<MemoryLeaseStore>,
    ledger: Ledger,
    recorder: Recorder,
    /// The slot of the node that acted last: the fault schedule aims at it more often.
    acting: Mutex<Option<usize>>,
}

impl World {
    fn now(&self) -> i64 {
        self.clock.now().as_millis()
    }

    fn record_fault(&self, node: &str, fault: Fault) {
        self.recorder.record(Event::Fault { at: self.now(), node: node.into(), fault });
    }
}

fn lease() -> LeaseName {
    "leader".parse().expect("a valid lease name")
}

/// One incarnation of a node: its link, elector, campaign and the leader's work loop.
struct Incarnation {
    link: Link,
    elector: Elector,
    campaign: Campaign,
    worker: JoinHandle<()>,
}

/// A node slot, running or crashed.
struct Node {
    slot: usize,
    name: String,
    incarnations: u32,
    running: Option<Incarnation>,
    down_until: Option<Instant>,
    /// A pause the leader takes between its next check and its write.
    pause: Arc<Mutex<Option<Duration>>>,
}

impl Node {
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

    fn start(&mut self, world: &Arc<World>) {
        self.incarnations += 1;
        let name = format!("{}.{}", self.name, self.incarnations);
        let link = Link::new(world.dice.clone());
        let inner: Arc<dyn LeaseStore> = world.store.clone();
        let store: Arc<dyn LeaseStore> = Arc::new(Layered::new(inner, link.clone()));
        let config = ElectorConfig::new(HolderId::generate(&self.name, self.incarnations));
        let elector = Elector::new(store, config.with_ttl(TTL)).expect("valid timing");
        let campaign = elector.campaign(lease());
        let worker = tokio::spawn(work(
            world.clone(),
            (self.slot, name),
            campaign.watch(),
            self.pause.clone(),
        ));
        self.running = Some(Incarnation { link, elector, campaign, worker });
        self.down_until = None;
    }

    /// Crashes the node: nothing it sends reaches the store any more and its tasks stop.
    fn crash(&mut self, restart_after: Duration) {
        if let Some(incarnation) = self.running.take() {
            incarnation.link.kill();
            incarnation.worker.abort();
            drop(incarnation.campaign);
            drop(incarnation.elector);
            self.down_until = Some(Instant::now() + restart_after);
        }
    }

    /// Stops the node gracefully.
    async fn stop(mut self) {
        if let Some(incarnation) = self.running.take() {
            incarnation.worker.abort();
            drop(incarnation.campaign);
            incarnation.elector.shutdown().await;
        }
    }
}

/// The leader's work: while this node's term is valid, check it, act, and write to the
/// fenced resource under its token, every few tens of milliseconds.
async fn work(
    world: Arc<World>,
    (slot, node): (usize, String),
    mut leadership: watch::Receiver<Leadership>,
    pause: Arc<Mutex<Option<Duration>>>,
) {
    loop {
        let handle = loop {
            if let Leadership::Leader(handle) = &*leadership.borrow_and_update()
                && !handle.is_cancelled()
            {
                break handle.clone();
            }
            if leadership.changed().await.is_err() {
                return;
            }
        };
        loop {
            tokio::time::sleep(world.dice.millis(10..60)).await;
            if handle.ensure_valid().is_err() {
                break;
            }
            let token = handle.token().get();
            world.recorder.record(Event::Acted { at: world.now(), node: node.clone(), token });
            *world.acting.lock().unwrap_or_else(|e| e.into_inner()) = Some(slot);
            let paused = pause.lock().unwrap_or_else(|e| e.into_inner()).take();
            if let Some(paused) = paused {
                tokio::time::sleep(paused).await;
            }
            let accepted = world.ledger.write(token);
            let at = world.now();
            world.recorder.record(Event::Wrote { at, node: node.clone(), token, accepted });
        }
    }
}

/// Runs the simulation of `seed` to its end and answers what happened.
pub(super) async fn run(seed: u64) -> Run {
    let clock = VirtualClock::start();
    let world = Arc::new(World {
        clock,
        dice: Dice::new(seed),
        store: Arc::new(MemoryLeaseStore::with_clock(Arc::new(clock))),
        ledger: Ledger::default(),
        recorder: Recorder::default(),
        acting: Mutex::default(),
    });
    let mut nodes: Vec<Node> = (0..NODES).map(Node::new).collect();
    for node in &mut nodes {
        node.start(&world);
    }
    while world.clock.elapsed() < FAULTS_FOR {
        tokio::time::sleep(world.dice.millis(500..4_000)).await;
        for node in &mut nodes {
            if node.down_until.is_some_and(|until| Instant::now() >= until) {
                world.record_fault(&node.name, Fault::Restart);
                node.start(&world);
            }
        }
        let acting = *world.acting.lock().unwrap_or_else(|e| e.into_inner());
        let slot = match acting {
            Some(slot) if world.dice.chance(AIM_AT_LEADER) => slot,
            _ => usize::try_from(world.dice.range(0..NODES as u64)).expect("a node index"),
        };
        inject(&world, &mut nodes[slot]);
    }
    let calm_from = world.now();
    for node in &mut nodes {
        if let Some(incarnation) = &node.running {
            incarnation.link.heal();
        } else {
            node.start(&world);
        }
    }
    tokio::time::sleep(CALM_FOR).await;
    let ended_at = world.now();
    for node in nodes {
        node.stop().await;
    }
    Run { events: world.recorder.events(), grants: grants(&world.store).await, calm_from, ended_at }
}

/// One fault, drawn from the dice, on `node`.
fn inject(world: &World, node: &mut Node) {
    let span = world.dice.millis(200..4_000);
    let drawn = world.dice.range(0..Fault::DRAWN.len() as u64);
    let fault = Fault::DRAWN[usize::try_from(drawn).expect("an index")];
    let Some(incarnation) = &node.running else { return };
    world.record_fault(&node.name, fault);
    match fault {
        Fault::Cut => incarnation.link.cut(span),
        Fault::Slow => incarnation.link.slow(span),
        Fault::LoseAnswers => incarnation.link.lose_answers(span),
        Fault::Degrade => incarnation.link.degrade(span),
        Fault::Flap => incarnation.link.flap(span * 2, world.dice.millis(200..1_000)),
        Fault::Pause => *node.pause.lock().unwrap_or_else(|e| e.into_inner()) = Some(span),
        Fault::StepDown => {
            let step_downs = incarnation.campaign.step_downs();
            tokio::spawn(async move { step_downs.request().await });
        }
        Fault::Crash => node.crash(span),
        Fault::Restart => unreachable!("restarts follow crashes; they are not drawn"),
    }
}

/// Every term the store granted, in the order it granted them.
async fn grants(store: &MemoryLeaseStore) -> Vec<Grant> {
    let mut grants = Vec::new();
    let mut after = None;
    loop {
        let params = HistoryParams { lease: None, after, limit: 1000 };
        let page = store.history(params).await.expect("the memory store's history");
        grants.extend(page.items.into_iter().map(|change| Grant {
            at: change.at.as_millis(),
            token: change.token.get(),
            holder: change.holder.to_string(),
        }));
        match page.next {
            Some(next) => after = Some(next),
            None => return grants,
        }
    }
}
