//! The claim loop: claims due executions for the free slots, then sleeps until the next due
//! instant the claim reported, a notification, or the poll interval, whichever comes first.

use std::sync::Arc;
use std::time::Duration;

use baton_core::job::{ClaimParams, Claimed, DueChanges};
use tokio::time::{Instant, sleep_until};
use tokio_util::sync::CancellationToken;

use super::Worker;

/// How long the worker trusts its own reading of the store's clock.
const CLOCK_REFRESH: Duration = Duration::from_secs(30);
use crate::planted;
use crate::scheduler::store_clock::StoreClock;

impl Worker {
    /// Claims and starts work until `stop` fires.
    pub(crate) async fn claim_loop(self: Arc<Self>, stop: CancellationToken) {
        if self.jobs.is_empty() {
            return;
        }
        let mut feed = self.subscribe().await;
        loop {
            if stop.is_cancelled() {
                return;
            }
            if self.slots.available_permits() == 0 {
                // Every slot is busy: claim again once one is returned. The notification is
                // stored if it came first, so none is lost.
                tokio::select! {
                    biased;
                    () = stop.cancelled() => return,
                    () = self.freed.notified() => {}
                }
                continue;
            }
            let wake = match self.claim_once().await {
                Ok(Some(wake)) => wake,
                // It took all it asked for: more may be due at once.
                Ok(None) => continue,
                Err(err) => {
                    tracing::warn!(%err, "claiming executions failed, retrying");
                    Instant::now() + self.config.heartbeat_interval.min(self.config.poll_interval)
                }
            };
            tokio::select! {
                biased;
                () = stop.cancelled() => return,
                () = sleep_until(wake) => {}
                woken = next_wake_up(&mut feed) => {
                    if !woken {
                        feed = self.subscribe().await;
                    }
                }
            }
        }
    }

    async fn subscribe(&self) -> Option<Box<dyn DueChanges>> {
        match self.store.subscribe_due().await {
            Ok(feed) => feed,
            Err(err) => {
                tracing::warn!(%err, "cannot subscribe to due executions; polling");
                None
            }
        }
    }

    /// One claim for the free slots. Answers `None` when it started as many executions as
    /// it asked for, so that more may be due at once; otherwise when to claim again.
    async fn claim_once(self: &Arc<Self>) -> baton_core::Result<Option<Instant>> {
        let asked = self.slots.available_permits().min(self.config.claim_batch as usize);
        let params = ClaimParams {
            node: self.node.clone(),
            limit: u32::try_from(asked).unwrap_or(u32::MAX),
            jobs: self.jobs.keys().cloned().collect(),
            ahead: self.config.claim_ahead,
        };
        let sent = Instant::now();
        let claimed = self.store.claim(params).await?;
        for settled in &claimed.settled {
            crate::metrics::execution_settled(settled);
            tracing::info!(job = %settled.job, execution = settled.id, status = %settled.status,
                detail = settled.detail.as_deref().unwrap_or(""), "execution settled without running");
        }
        let full = claimed.running.len() >= asked;
        let ahead = claimed.running.iter().any(|execution| execution.due_at > claimed.now);
        let clock = self.clock(&claimed, Instant::now(), ahead).await;
        let wake = self.next_wake(&claimed, &clock);
        for execution in claimed.running {
            let lag = claimed.now.saturating_since(execution.due_at);
            crate::metrics::fire_lag(&execution.job, lag);
            // One claimed ahead of its instant starts at that instant.
            let start_at =
                (execution.due_at > claimed.now).then(|| clock.local_instant(execution.due_at));
            self.start(execution, planted::counted_from(sent), start_at);
        }
        Ok((!full).then_some(wake))
    }

    /// How to map store instants onto the local clock after a claim answered at `received`.
    ///
    /// A claim's time pairs with its answer only roughly: the store read its clock as it
    /// started deciding, up to the whole claim earlier, so timers set from that pairing fire
    /// late by as much (tens of milliseconds for a large claim). That is good enough to know
    /// when to claim again, but a fire claimed ahead must start on its instant, so then the
    /// worker keeps a reading of the store's clock of its own (placed at the middle of a short
    /// round trip), taken again when older than [`CLOCK_REFRESH`].
    async fn clock(&self, claimed: &Claimed, received: Instant, ahead: bool) -> StoreClock {
        let rough = StoreClock::pairing(claimed.now, received);
        let mut reading = *self.clock.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let stale = reading.is_none_or(|clock| clock.age() > CLOCK_REFRESH);
        if ahead && stale {
            match StoreClock::read(&*self.store).await {
                Ok(fresh) => {
                    reading = Some(fresh);
                    *self.clock.lock().unwrap_or_else(|poisoned| poisoned.into_inner()) = reading;
                }
                Err(err) => tracing::warn!(%err, "reading the store's clock failed"),
            }
        }
        reading.filter(|clock| clock.age() <= CLOCK_REFRESH).unwrap_or(rough)
    }

    /// When to claim again after a claim that took all it could, capped by the poll interval:
    /// `claim_ahead` before the next due instant, so that it is claimed ahead; at that instant
    /// when it is closer than that (the claim left it to be decided when due). An execution
    /// already due that the claim left is waiting on its job's overlap policy or being judged
    /// by another claimer; the worker then looks again after a heartbeat interval rather than
    /// at once, so it never spins.
    fn next_wake(&self, claimed: &Claimed, clock: &StoreClock) -> Instant {
        let poll = Instant::now() + self.config.poll_interval;
        let ahead = self.config.claim_ahead;
        match claimed.next_due {
            None => poll,
            Some(next) if next <= claimed.now => {
                poll.min(Instant::now() + self.config.heartbeat_interval)
            }
            Some(next) if next <= claimed.now.saturating_add(ahead) => {
                poll.min(clock.local_instant(next))
            }
            Some(next) => poll.min(clock.local_instant(next).checked_sub(ahead).unwrap_or(poll)),
        }
    }
}

/// Waits for the next wake-up of the feed; `false` when the feed broke. Without a feed it
/// never resolves, so the timer decides.
async fn next_wake_up(feed: &mut Option<Box<dyn DueChanges>>) -> bool {
    match feed {
        Some(feed) => feed.next().await.is_ok(),
        None => std::future::pending().await,
    }
}
