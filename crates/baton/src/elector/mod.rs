//! Leader election and lease holding with fencing tokens.
//!
//! An [`Elector`] acts for one holder (one process incarnation) and may hold many leases. Every
//! lease it holds is renewed by one store call per renew interval, whatever their number. Each
//! acquisition starts a term, a claim of the claim runtime (see `docs/architecture.md`) with a local deadline
//! on the monotonic clock (send time of the last confirmed acquire or renew plus the renew
//! deadline); past it, or when the store reports the lease lost, or when the process stalled,
//! or when the elector shuts down or is dropped, the term ends and its [`LeaderGuard`] is
//! cancelled, before any other contender can acquire the lease on the store's clock.

mod campaign;
mod config;
mod guard;
mod renewer;
mod shared;
mod wakeups;

use std::sync::Arc;
use std::time::Duration;

use baton_core::{
    AcquireOutcome, AcquireParams, Error, ErrorKind, HolderId, Lease, LeaseName, LeaseStore,
    RenewParams, Result,
};
use tokio::time::Instant;

use crate::planted::{self, Bug, planted};
pub(crate) use campaign::StepDown;
pub use campaign::{Campaign, Leadership};
pub use config::ElectorConfig;
pub use guard::{LeaderGuard, LeaderHandle};
use shared::Shared;

/// The answer to [`Elector::try_acquire`].
#[derive(Debug)]
#[non_exhaustive]
pub enum Acquisition {
    /// This process now holds the lease.
    Acquired(LeaderGuard),
    /// Someone else holds it; this is its record.
    Held(Lease),
}

/// Acquires and holds leases for one holder. Cheap to clone.
///
/// The elector owns its terms: when the last clone is dropped (or on [`Elector::shutdown`]),
/// every term ends, so every guard's and handle's cancellation fires, and the leases are
/// released in the background; keep the elector alive for as long as the work done under its
/// leases.
#[derive(Debug, Clone)]
pub struct Elector {
    shared: Arc<Shared>,
    _owner: Arc<Owner>,
}

/// Ends every term when the last clone of an elector is dropped.
#[derive(Debug)]
struct Owner(Arc<Shared>);

impl Drop for Owner {
    fn drop(&mut self) {
        for (lease, term) in self.0.terms.all() {
            self.0.step_down_in_background(lease, term, "the elector was dropped");
        }
        self.0.shutdown.cancel();
    }
}

impl Elector {
    /// Validates `config` and starts the renew loop and the stall watchdog on the current tokio
    /// runtime.
    pub fn new(store: Arc<dyn LeaseStore>, config: ElectorConfig) -> Result<Self> {
        config.validate()?;
        let shared = Arc::new(Shared::new(store, config));
        shared.tasks.spawn(renewer::run(shared.clone()));
        shared.tasks.spawn(renewer::enforce(shared.clone()));
        Ok(Elector { _owner: Arc::new(Owner(shared.clone())), shared })
    }

    /// The holder this elector acts for.
    pub fn holder(&self) -> &HolderId {
        &self.shared.config.holder
    }

    /// The timing in use.
    pub fn config(&self) -> &ElectorConfig {
        &self.shared.config
    }

    /// The store leases are held in.
    pub fn store(&self) -> &Arc<dyn LeaseStore> {
        &self.shared.store
    }

    /// One attempt: acquires the lease if it is free, or reports who holds it.
    ///
    /// An attempt whose outcome is unknown (the store timed out or went away mid-request) is
    /// resolved by reading the lease back, never by retrying blindly. A lease this elector
    /// already holds is refused with `InvalidInput`: use the guard of that term.
    pub async fn try_acquire(&self, name: &LeaseName) -> Result<Acquisition> {
        self.ensure_running()?;
        if let Some(term) = self.shared.terms.get(name).filter(|term| !term.is_ended()) {
            return Err(Error::invalid_input(format!(
                "lease {name} is already held by this elector (token {}): use the guard of \
                 that term, or release it first",
                term.token()
            )));
        }
        let params = AcquireParams {
            name: name.clone(),
            holder: self.shared.config.holder.clone(),
            ttl: self.shared.config.ttl,
        };
        let sent = Instant::now();
        let (lease, sent) = match self.shared.store.acquire(params).await {
            Ok(AcquireOutcome::Acquired { lease, reason }) => {
                tracing::info!(lease = %name, token = %lease.token, %reason, "acquired lease");
                (lease, planted::counted_from(sent))
            }
            Ok(AcquireOutcome::Held(lease)) => return Ok(Acquisition::Held(lease)),
            Ok(_) => return Err(Error::new(ErrorKind::Internal, "unexpected acquire outcome")),
            Err(err) if err.kind().outcome_unknown() => self.read_back(name, err).await?,
            Err(err) => return Err(err),
        };
        let what = format!("lease {name}");
        let term = self.shared.terms.hold(name.clone(), what, lease.token, sent, |_| ());
        Ok(Acquisition::Acquired(LeaderGuard::new(name.clone(), term, self.shared.clone())))
    }

    /// Resolves an acquisition of unknown outcome. A record naming this holder is only a
    /// candidate: it may be expired, or left by a term this elector already ended. It becomes
    /// a term only once a compare-and-set renewal under its token succeeds, judged on the
    /// store's clock; the term's deadline counts from that renewal's send time. Answers the
    /// lease and that send time, or the original error.
    async fn read_back(&self, name: &LeaseName, original: Error) -> Result<(Lease, Instant)> {
        let holder = &self.shared.config.holder;
        let candidate = match self.shared.store.get(name).await {
            Ok(Some(lease)) if lease.holder.as_ref() == Some(holder) => lease,
            _ => return Err(original),
        };
        if planted(Bug::TrustReadBack) {
            return Ok((candidate, Instant::now()));
        }
        let params =
            RenewParams { name: name.clone(), holder: holder.clone(), token: candidate.token };
        let sent = Instant::now();
        match self.shared.store.renew(params).await {
            Ok(lease) => {
                tracing::info!(lease = %name, token = %lease.token,
                    "an acquisition of unknown outcome took effect: confirmed by a renewal");
                Ok((lease, sent))
            }
            Err(err) => {
                tracing::warn!(lease = %name, token = %candidate.token, %err,
                    "a record naming this holder could not be renewed: not a term");
                Err(original)
            }
        }
    }

    /// Waits until the lease is acquired, waking at once when the store reports the lease
    /// released. Without a release it asks again when the holder's lease expires on the
    /// store's clock (spread by the jitter), or every retry period on a store that cannot
    /// notify. Transient store errors are logged and retried after a retry period; invalid
    /// input and schema errors are returned.
    pub async fn acquire(&self, name: &LeaseName) -> Result<LeaderGuard> {
        wakeups::ensure_listening(&self.shared);
        let mut released = self.shared.released.subscribe();
        loop {
            let mut wait = self.shared.config.jittered_retry();
            match self.try_acquire(name).await {
                Ok(Acquisition::Acquired(guard)) => return Ok(guard),
                Ok(Acquisition::Held(lease)) => wait = self.until_expiry(&lease).await,
                Err(err)
                    if matches!(
                        err.kind(),
                        ErrorKind::Unavailable | ErrorKind::Timeout | ErrorKind::Conflict
                    ) =>
                {
                    tracing::warn!(lease = %name, %err, "acquire attempt failed, retrying");
                }
                Err(err) => return Err(err),
            }
            tokio::select! {
                biased;
                () = self.shared.shutdown.cancelled() => return Err(shut_down()),
                () = tokio::time::sleep(wait) => {}
                () = wakeups::released(&mut released, name) => {}
            }
        }
    }

    /// How long a refused contender waits when no release wakes it: until the holder's lease
    /// expires on the store's clock, plus a random spread of up to `jitter × retry period`, so
    /// that a crashed holder is replaced within its TTL and a live one is asked about once per
    /// TTL rather than every retry period. The retry period when the store cannot notify of
    /// releases or its clock cannot be read.
    async fn until_expiry(&self, lease: &Lease) -> Duration {
        let config = &self.shared.config;
        if !self.shared.store.capabilities().change_notification {
            return config.jittered_retry();
        }
        match self.shared.store.now().await {
            Ok(now) => {
                let spread = config.retry_period.mul_f64(config.jitter * fastrand::f64());
                lease.expires_at.saturating_since(now) + spread
            }
            Err(_) => config.jittered_retry(),
        }
    }

    /// Campaigns for a lease in the background for as long as the returned [`Campaign`] lives,
    /// publishing leadership on a watch channel and campaigning again after each lost term.
    pub fn campaign(&self, name: LeaseName) -> Campaign {
        Campaign::start(self.clone(), name)
    }

    /// Graceful shutdown: ends every term (cancelling the work bound to it), releases every
    /// lease so the next holders take over at once, and stops the background tasks.
    pub async fn shutdown(&self) {
        for (lease, term) in self.shared.terms.all() {
            if let Err(err) = self.shared.step_down(&lease, &term, "shutting down").await {
                tracing::warn!(%lease, %err, "release on shutdown failed");
            }
        }
        self.shared.shutdown.cancel();
        self.shared.tasks.close();
        self.shared.tasks.wait().await;
    }

    fn ensure_running(&self) -> Result<()> {
        if self.shared.shutdown.is_cancelled() {
            return Err(shut_down());
        }
        Ok(())
    }
}

fn shut_down() -> Error {
    Error::new(ErrorKind::Unavailable, "the elector is shutting down")
}
