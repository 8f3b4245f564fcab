//! A background campaign for one lease, with leadership published on a watch channel.

use baton_core::{FencingToken, LeaseName};
use tokio::sync::watch;
use tokio_util::sync::{CancellationToken, DropGuard};

use super::{Elector, LeaderHandle};

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
#[derive(Debug)]
pub struct Campaign {
    leadership: watch::Receiver<Leadership>,
    _stop_on_drop: DropGuard,
}

impl Campaign {
    pub(super) fn start(elector: Elector, name: LeaseName) -> Self {
        let (sender, leadership) = watch::channel(Leadership::Follower);
        let stop = CancellationToken::new();
        let tasks = elector.shared.tasks.clone();
        tasks.spawn(run(elector, name, sender, stop.clone()));
        Campaign { leadership, _stop_on_drop: stop.drop_guard() }
    }

    /// A receiver of leadership changes.
    pub fn watch(&self) -> watch::Receiver<Leadership> {
        self.leadership.clone()
    }

    /// Waits until this process leads, and returns the term.
    pub async fn leader(&self) -> LeaderHandle {
        let mut receiver = self.leadership.clone();
        loop {
            if let Leadership::Leader(handle) = &*receiver.borrow_and_update()
                && !handle.is_cancelled()
            {
                return handle.clone();
            }
            if receiver.changed().await.is_err() {
                std::future::pending::<()>().await;
            }
        }
    }
}

async fn run(
    elector: Elector,
    name: LeaseName,
    sender: watch::Sender<Leadership>,
    stop: CancellationToken,
) {
    loop {
        let guard = tokio::select! {
            () = stop.cancelled() => return,
            guard = elector.acquire(&name) => match guard {
                Ok(guard) => guard,
                Err(err) => {
                    tracing::error!(lease = %name, %err, "campaign stopped");
                    return;
                }
            },
        };
        sender.send_replace(Leadership::Leader(guard.handle()));
        tokio::select! {
            () = stop.cancelled() => {
                sender.send_replace(Leadership::Follower);
                let _ = guard.release().await;
                return;
            }
            () = guard.cancelled() => {
                sender.send_replace(Leadership::Follower);
            }
        }
    }
}
