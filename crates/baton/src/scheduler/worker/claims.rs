//! The claim loop: claims due executions for the free slots, then sleeps until the next due
//! instant the claim reported, a notification, or the poll interval, whichever comes first.

use std::sync::Arc;

use baton_core::job::{ClaimParams, Claimed, DueChanges};
use tokio::time::{Instant, sleep_until};
use tokio_util::sync::CancellationToken;

use super::Worker;
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
        };
        let sent = Instant::now();
        let claimed = self.store.claim(params).await?;
        for settled in &claimed.settled {
            tracing::info!(job = %settled.job, execution = settled.id, status = %settled.status,
                detail = settled.detail.as_deref().unwrap_or(""), "execution settled without running");
        }
        let full = claimed.running.len() >= asked;
        let wake = self.next_wake(&claimed, Instant::now());
        for execution in claimed.running {
            self.start(execution, sent);
        }
        Ok((!full).then_some(wake))
    }

    /// When to claim again after a claim that took all it could: at the next due instant
    /// (mapped onto the local clock from the store's, read before the answer was `received`,
    /// so that the worker wakes at or just after it), capped by the poll interval. An
    /// execution already due that the claim left is waiting on its job's overlap policy or
    /// being judged by another claimer; the worker then looks again after a heartbeat
    /// interval rather than at once, so it never spins.
    fn next_wake(&self, claimed: &Claimed, received: Instant) -> Instant {
        let poll = received + self.config.poll_interval;
        match claimed.next_due {
            None => poll,
            Some(next) if next <= claimed.now => {
                poll.min(received + self.config.heartbeat_interval)
            }
            Some(next) => poll.min(StoreClock::pairing(claimed.now, received).local_instant(next)),
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
