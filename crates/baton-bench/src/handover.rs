//! Graceful handover: two electors, one holding the lease and one waiting in `acquire()`; the
//! time from just before the holder's `release()` to the waiter's `acquire()` returning.
//!
//! Before each release the waiter must really be waiting: its first attempt was refused and
//! its release feed, where the store has one, is subscribed. Both are observed through a
//! [`Probe`] around its store, so nothing is left to a fixed sleep.

use std::time::{Duration, Instant};

use baton::{Elector, ElectorConfig, HolderId, LeaderGuard, LeaseName};
use tokio::sync::{oneshot, watch};

use crate::probe::{self, Probe, Seen};

/// How long a waiter may take to show it is waiting before the run is abandoned.
const SETTLE_LIMIT: Duration = Duration::from_secs(10);

/// The handover times of a run.
#[derive(Debug, Clone)]
pub(crate) struct Handover {
    /// One gap per round, from release to acquisition.
    pub(crate) gaps: Vec<Duration>,
    /// The waiters' retry period, for comparison.
    pub(crate) retry_period: Duration,
    /// Its jitter, as a fraction.
    pub(crate) jitter: f64,
}

/// One side: an elector over its own lease store, and the probe on that store.
struct Side {
    elector: Elector,
    seen: watch::Receiver<Seen>,
    /// Whether the store has a release feed for the elector to subscribe to.
    feed: bool,
}

impl Side {
    async fn open(url: &str) -> anyhow::Result<Self> {
        let (store, seen) = Probe::wrap(baton::connect_leases(url).await?);
        let mut config = ElectorConfig::new(HolderId::generate("bench", fastrand::u32(..)));
        let capabilities = store.capabilities();
        let ttls = capabilities.ttls;
        if !ttls.grants(config.ttl) {
            let ttl = ttls.nearest(config.ttl);
            config = config.with_ttl(ttl);
        }
        let elector = Elector::new(store, config)?;
        Ok(Side { elector, seen, feed: capabilities.change_notification })
    }
}

/// Runs `rounds` handovers, the two electors taking turns as holder and waiter.
pub(crate) async fn run(url: &str, run: &str, rounds: u32) -> anyhow::Result<Handover> {
    let name = LeaseName::new(format!("bench-{run}-handover"))?;
    let mut sides = [Side::open(url).await?, Side::open(url).await?];
    let config = sides[0].elector.config().clone();
    let mut guard = sides[0].elector.acquire(&name).await?;
    let mut gaps = Vec::with_capacity(rounds as usize);
    for round in 0..rounds as usize {
        let waiter = &mut sides[(round + 1) % 2];
        let (gap, next) = hand_over(guard, waiter, &name).await?;
        gaps.push(gap);
        guard = next;
        if (round + 1) % 10 == 0 {
            eprintln!("bench:   handover round {}/{rounds}", round + 1);
        }
    }
    guard.release().await?;
    for side in &sides {
        side.elector.shutdown().await;
    }
    Ok(Handover { gaps, retry_period: config.retry_period, jitter: config.jitter })
}

/// Starts `waiter` acquiring, waits until it is really waiting, releases `guard` and measures
/// until the waiter holds the lease; returns the gap and the waiter's guard.
async fn hand_over(
    guard: LeaderGuard,
    waiter: &mut Side,
    name: &LeaseName,
) -> anyhow::Result<(Duration, LeaderGuard)> {
    let (refused_before, feed) = (waiter.seen.borrow().refused, waiter.feed);
    let (sender, acquired) = oneshot::channel();
    let elector = waiter.elector.clone();
    let wanted = name.clone();
    tokio::spawn(async move {
        let outcome = elector.acquire(&wanted).await;
        let _ = sender.send((outcome, Instant::now()));
    });
    probe::wait_until(
        &mut waiter.seen,
        SETTLE_LIMIT,
        "the waiter to be refused and subscribed (where the store has a release feed)",
        |seen| seen.refused > refused_before && (seen.subscribed > 0 || !feed),
    )
    .await?;
    let released_at = Instant::now();
    let released = guard.release().await?;
    anyhow::ensure!(released, "the holder no longer held lease {name} at release");
    let (outcome, acquired_at) = acquired.await?;
    Ok((acquired_at - released_at, outcome?))
}
