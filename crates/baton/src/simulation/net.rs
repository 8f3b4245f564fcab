//! The network between one node and the store, as a layer around the node's store: every call
//! takes a drawn latency each way, and while a fault is on, a request never arrives (a cut) or
//! its answer never comes back (a lost answer: the store applied the call, the node cannot
//! know). A call that never ends is ended by the runtime's own time limits, as on a real
//! network.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use baton_core::layer::{CallFuture, Layer};
use tokio::time::Instant;

use super::dice::Dice;

/// The faults on one node's link, each on until an instant.
#[derive(Debug, Default)]
struct Faults {
    /// Nothing arrives, either way, before this instant.
    cut_until: Option<Instant>,
    /// Requests (not answers) arriving in this span never arrive: a one-way cut.
    requests_cut: Option<(Instant, Instant)>,
    /// Answers due before this instant are lost.
    lossy_until: Option<Instant>,
    /// Before this instant, each way of a call is slow half the time.
    slow_until: Option<Instant>,
    /// The link goes down and up.
    flapping: Option<Flapping>,
    /// The node crashed: nothing it sends arrives, for good.
    dead: bool,
}

/// A link going down and up in turns of one period, starting down.
#[derive(Debug, Clone, Copy)]
struct Flapping {
    from: Instant,
    until: Instant,
    period: Duration,
}

impl Flapping {
    fn down_at(&self, now: Instant) -> bool {
        let turns = now.duration_since(self.from).as_millis() / self.period.as_millis().max(1);
        now < self.until && turns.is_multiple_of(2)
    }
}

/// Latency each way on a healthy link, in milliseconds.
const FAST: std::ops::Range<u64> = 1..12;
/// Latency one way of a call on a slow link, when that way is slow: up to nearly the
/// runtime's longest wait for a call.
const SLOW: std::ops::Range<u64> = 300..2_000;
/// The share of ways that are slow on a slow link, drawn for each way of each call, so that a
/// quick request can meet a slow answer and the other way round.
const SLOW_SHARE: f64 = 0.5;
/// The share of answers lost while a link is lossy.
const LOST_SHARE: f64 = 0.5;

/// One node's link to the store; cloned into the layer and into the fault schedule.
#[derive(Debug, Clone)]
pub(super) struct Link {
    faults: Arc<Mutex<Faults>>,
    dice: Dice,
}

impl Link {
    pub(super) fn new(dice: Dice) -> Self {
        Link { faults: Arc::default(), dice }
    }

    fn faults(&self) -> std::sync::MutexGuard<'_, Faults> {
        self.faults.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Cuts the link for `span`, or longer if it is cut for longer already.
    pub(super) fn cut(&self, span: Duration) {
        let until = Instant::now() + span;
        let mut faults = self.faults();
        faults.cut_until = Some(faults.cut_until.map_or(until, |cut| cut.max(until)));
    }

    /// Degrades the link, as a failing network does: for `span` it is slow, then for another
    /// `span` no request arrives while answers already on their way still do.
    pub(super) fn degrade(&self, span: Duration) {
        let now = Instant::now();
        let mut faults = self.faults();
        faults.slow_until = Some(now + span);
        faults.requests_cut = Some((now + span, now + span * 2));
    }

    /// Loses about half the answers for `span`.
    pub(super) fn lose_answers(&self, span: Duration) {
        self.faults().lossy_until = Some(Instant::now() + span);
    }

    /// Slows the link for `span`: about half the ways of its calls take hundreds of
    /// milliseconds to seconds.
    pub(super) fn slow(&self, span: Duration) {
        self.faults().slow_until = Some(Instant::now() + span);
    }

    /// Makes the link flap for `span`: down for `period`, then up but losing answers for
    /// `period`, and so on.
    pub(super) fn flap(&self, span: Duration, period: Duration) {
        let now = Instant::now();
        let mut faults = self.faults();
        faults.flapping = Some(Flapping { from: now, until: now + span, period });
        faults.lossy_until = Some(now + span);
    }

    /// The node crashed: nothing it sends from now on arrives.
    pub(super) fn kill(&self) {
        self.faults().dead = true;
    }

    /// Ends every fault but a crash.
    pub(super) fn heal(&self) {
        let mut faults = self.faults();
        faults.cut_until = None;
        faults.requests_cut = None;
        faults.flapping = None;
        faults.lossy_until = None;
        faults.slow_until = None;
    }

    fn latency(&self) -> Duration {
        let slow = self.faults().slow_until.is_some_and(|until| Instant::now() < until);
        let slow = slow && self.dice.chance(SLOW_SHARE);
        Duration::from_millis(self.dice.range(if slow { SLOW } else { FAST }))
    }

    fn connected(&self) -> bool {
        let faults = self.faults();
        let now = Instant::now();
        let flapped_down = faults.flapping.is_some_and(|flapping| flapping.down_at(now));
        !faults.dead && !flapped_down && faults.cut_until.is_none_or(|until| now >= until)
    }

    fn request_arrives(&self) -> bool {
        let now = Instant::now();
        let one_way =
            self.faults().requests_cut.is_some_and(|(from, until)| now >= from && now < until);
        self.connected() && !one_way
    }

    fn answer_arrives(&self) -> bool {
        let lossy = self.faults().lossy_until.is_some_and(|until| Instant::now() < until);
        self.connected() && !(lossy && self.dice.chance(LOST_SHARE))
    }
}

impl Layer for Link {
    fn call<'a, T: Send + 'a>(
        &'a self,
        _op: &'static str,
        call: CallFuture<'a, T>,
    ) -> CallFuture<'a, T> {
        Box::pin(async move {
            tokio::time::sleep(self.latency()).await;
            if !self.request_arrives() {
                return std::future::pending().await;
            }
            let answer = call.await;
            tokio::time::sleep(self.latency()).await;
            if !self.answer_arrives() {
                return std::future::pending().await;
            }
            answer
        })
    }
}
