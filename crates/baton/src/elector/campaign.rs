//! A background campaign for one lease, with leadership published on a watch channel.

use std::sync::{Arc, Mutex};

use baton_core::{Error, ErrorKind, FencingToken, LeaseName, Result};
use tokio::sync::{mpsc, oneshot, watch};
use tokio_util::sync::{CancellationToken, DropGuard};

use super::{Elector, LeaderGuard, LeaderHandle};

/// This process's standing for one lease.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum Leadership {
    /// Not the leader (yet, or any more).
    Follower,
    /// The leader, for the term this handle describes.
    Leader(LeaderHandle),
}

impl Leadership {
    /// The fencing token of the current term, if leading.
    pub fn token(&self) -> Option<FencingToken> {
        match self {
            Leadership::Leader(handle) => Some(handle.token()),
            Leadership::Follower => None,
        }
    }
}

/// A running campaign; dropping it stops campaigning and releases the lease if held.
///
/// A campaign stops for good when the store refuses an acquisition for a reason that does not
/// pass (anything but unavailable, timed out or conflicting), or when its elector shuts down:
/// the leadership channel then closes, and [`Campaign::leader`] answers the error.
#[derive(Debug)]
pub struct Campaign {
    leadership: watch::Receiver<Leadership>,
    step_downs: StepDown,
    stopped: Stopped,
    _stop_on_drop: DropGuard,
}

/// Why a campaign stopped for good, once it has: the error's kind and message.
type Stopped = Arc<Mutex<Option<(ErrorKind, String)>>>;

/// Asks a campaign to step down; it outlives neither the campaign nor its task, so the owner
/// of a campaign's task can keep one without keeping the campaign alive.
#[derive(Debug, Clone)]
pub(crate) struct StepDown(mpsc::UnboundedSender<oneshot::Sender<bool>>);

impl StepDown {
    /// Asks for a step-down and waits for the answer: whether the campaign was leading. A
    /// campaign that has stopped answers `false`.
    pub(crate) async fn request(&self) -> bool {
        let (reply, answer) = oneshot::channel();
        if self.0.send(reply).is_err() {
            return false;
        }
        answer.await.unwrap_or(false)
    }
}

impl Campaign {
    pub(super) fn start(elector: Elector, name: LeaseName) -> Self {
        let (sender, leadership) = watch::channel(Leadership::Follower);
        let (requests, received) = mpsc::unbounded_channel();
        let stop = CancellationToken::new();
        let stopped = Stopped::default();
        let tasks = elector.shared.tasks.clone();
        tasks.spawn(run(elector, name, sender, received, stop.clone(), stopped.clone()));
        Campaign {
            leadership,
            step_downs: StepDown(requests),
            stopped,
            _stop_on_drop: stop.drop_guard(),
        }
    }

    /// A receiver of leadership changes.
    pub fn watch(&self) -> watch::Receiver<Leadership> {
        self.leadership.clone()
    }

    /// Waits until this process leads, and returns the term; fails once the campaign has
    /// stopped for good, with the reason.
    pub async fn leader(&self) -> Result<LeaderHandle> {
        let mut receiver = self.leadership.clone();
        loop {
            if let Leadership::Leader(handle) = &*receiver.borrow_and_update()
                && !handle.is_cancelled()
            {
                return Ok(handle.clone());
            }
            if receiver.changed().await.is_err() {
                let stopped = self.stopped.lock().unwrap_or_else(|e| e.into_inner()).clone();
                let (kind, why) = stopped.unwrap_or((ErrorKind::Unavailable, "stopped".into()));
                return Err(Error::new(kind, format!("the campaign stopped: {why}")));
            }
        }
    }

    /// Gives up the lease if this process holds it: ends the term, releases the lease so that
    /// a waiting contender takes over at once, and stays out of the election for two retry
    /// periods (at their longest jitter) before campaigning again, so that even a contender
    /// that polls instead of being woken wins the next term. Answers whether this process was
    /// leading; when it was not, nothing changes. "Leading" is what this process knows: while
    /// its acquisition is in flight it is not leading yet, even if the store has granted the
    /// lease and another reader already sees the new term.
    pub async fn step_down(&self) -> bool {
        self.step_downs.request().await
    }

    /// A handle that asks this campaign to step down, for the task that owns the campaign.
    pub(crate) fn step_downs(&self) -> StepDown {
        self.step_downs.clone()
    }
}

type Requests = mpsc::UnboundedReceiver<oneshot::Sender<bool>>;

async fn run(
    elector: Elector,
    name: LeaseName,
    sender: watch::Sender<Leadership>,
    mut requests: Requests,
    stop: CancellationToken,
    stopped: Stopped,
) {
    loop {
        let guard = match acquire(&elector, &name, &mut requests, &stop).await {
            Ok(Some(guard)) => guard,
            Ok(None) => return,
            Err(err) => {
                // An elector shutting down stops its campaigns: that is no failure.
                if elector.shared.shutdown.is_cancelled() {
                    tracing::debug!(lease = %name, %err, "campaign stopped");
                } else {
                    tracing::error!(lease = %name, %err, "campaign stopped");
                }
                *stopped.lock().unwrap_or_else(|e| e.into_inner()) =
                    Some((err.kind(), err.to_string()));
                return;
            }
        };
        sender.send_replace(Leadership::Leader(guard.handle()));
        tokio::select! {
            biased;
            () = stop.cancelled() => {
                sender.send_replace(Leadership::Follower);
                let _ = guard.release().await;
                return;
            }
            () = guard.cancelled() => {
                sender.send_replace(Leadership::Follower);
            }
            Some(reply) = requests.recv() => {
                sender.send_replace(Leadership::Follower);
                let token = guard.token();
                if let Err(err) = guard.release().await {
                    tracing::warn!(lease = %name, %err, "release on step-down failed; the lease expires by its TTL");
                }
                tracing::info!(lease = %name, %token, "stepped down");
                let _ = reply.send(true);
                let until = tokio::time::Instant::now() + elector.config().stand_aside();
                if !stand_aside(until, &mut requests, &stop).await {
                    return;
                }
            }
        }
    }
}

/// Acquires the lease, answering step-down requests meanwhile (not leading); `None` when the
/// campaign is stopped, an error when it cannot go on. The acquisition is never abandoned
/// halfway for a request, so a lease the store granted always has its guard.
async fn acquire(
    elector: &Elector,
    name: &LeaseName,
    requests: &mut Requests,
    stop: &CancellationToken,
) -> Result<Option<LeaderGuard>> {
    let acquiring = elector.acquire(name);
    tokio::pin!(acquiring);
    loop {
        tokio::select! {
            biased;
            () = stop.cancelled() => return Ok(None),
            Some(reply) = requests.recv() => {
                let _ = reply.send(false);
            }
            acquired = &mut acquiring => return acquired.map(Some),
        }
    }
}

/// Stays out of the election until `until`, answering step-down requests (not leading);
/// `false` when the campaign stops meanwhile.
async fn stand_aside(
    until: tokio::time::Instant,
    requests: &mut Requests,
    stop: &CancellationToken,
) -> bool {
    loop {
        tokio::select! {
            biased;
            () = stop.cancelled() => return false,
            () = tokio::time::sleep_until(until) => return true,
            Some(reply) = requests.recv() => {
                let _ = reply.send(false);
            }
        }
    }
}
