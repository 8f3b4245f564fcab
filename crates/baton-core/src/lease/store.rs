//! The `LeaseStore` trait every backend implements, and its parameter and outcome types.

use std::time::Duration;

use async_trait::async_trait;

use super::{
    ChangeReason, FencingToken, HistoryParams, HolderId, LeaderChange, Lease, LeaseName, TtlRange,
};
use crate::error::Result;
use crate::page::Page;
use crate::time::StoreTime;

/// Ask for a lease.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AcquireParams {
    /// The lease to acquire.
    pub name: LeaseName,
    /// Who asks.
    pub holder: HolderId,
    /// How long the lease lives without renewal, judged on the store's clock.
    pub ttl: Duration,
}

/// The answer to an [`AcquireParams`] request.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum AcquireOutcome {
    /// The caller now holds the lease under a new token.
    Acquired {
        /// The lease as stored after the acquisition.
        lease: Lease,
        /// Why the lease was free.
        reason: ChangeReason,
    },
    /// Someone else holds the lease; this is its record.
    Held(Lease),
}

/// Extend one lease held under `token`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RenewParams {
    /// The lease to renew.
    pub name: LeaseName,
    /// The holder that acquired it.
    pub holder: HolderId,
    /// The token of that acquisition.
    pub token: FencingToken,
}

/// Extend every listed lease of one holder, in one statement where the store allows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RenewAllParams {
    /// The holder.
    pub holder: HolderId,
    /// The leases it believes it holds, each with the token of its acquisition.
    pub leases: Vec<(LeaseName, FencingToken)>,
}

/// The answer to a [`RenewAllParams`] request.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RenewAllOutcome {
    /// Leases extended, as stored after the renewal.
    pub renewed: Vec<Lease>,
    /// Leases the holder no longer holds (expired, taken over or released).
    pub lost: Vec<LeaseName>,
}

/// Give a lease up gracefully.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReleaseParams {
    /// The lease to release.
    pub name: LeaseName,
    /// The holder that acquired it.
    pub holder: HolderId,
    /// The token of that acquisition.
    pub token: FencingToken,
}

/// Free a lease whoever holds it (an operator's action).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ForceReleaseParams {
    /// The lease to free.
    pub name: LeaseName,
}

/// What a backend can do beyond the required operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct Capabilities {
    /// [`LeaseStore::subscribe`] returns a feed of released leases.
    pub change_notification: bool,
    /// The TTLs [`LeaseStore::acquire`] grants; it refuses others with `InvalidInput`.
    pub ttls: TtlRange,
}

impl Capabilities {
    /// Capabilities with change notification switched on or off.
    pub fn with_change_notification(mut self, on: bool) -> Self {
        self.change_notification = on;
        self
    }

    /// Capabilities granting the TTLs of `ttls`.
    pub fn with_ttls(mut self, ttls: TtlRange) -> Self {
        self.ttls = ttls;
        self
    }
}

/// A feed of leases that became free, so that waiters need not poll.
#[async_trait]
pub trait LeaseChanges: Send {
    /// Waits for the next lease that was released. An error means the feed broke; subscribe
    /// again.
    async fn next(&mut self) -> Result<LeaseName>;
}

/// A store of leases with fencing tokens.
///
/// Every backend implements this trait and passes the conformance suite in `baton-testkit`:
/// at most one holder per lease at any instant of the store's clock (I1); every acquisition
/// issues a token strictly greater than any issued before for that name, even after the record
/// was deleted or the store restarted (I2); renew and release are compare-and-set on
/// (holder, token); every acquisition is recorded in the leader-change history (I8).
#[async_trait]
pub trait LeaseStore: Send + Sync + 'static {
    /// Acquires the lease if it is free, released or expired on the store's clock.
    async fn acquire(&self, params: AcquireParams) -> Result<AcquireOutcome>;

    /// Extends a lease by its TTL; fails with `LeaseLost` unless the caller still holds it under
    /// the given token and it has not expired.
    async fn renew(&self, params: RenewParams) -> Result<Lease>;

    /// Extends every listed lease of a holder at once.
    async fn renew_all(&self, params: RenewAllParams) -> Result<RenewAllOutcome>;

    /// Releases a lease held under the given token and wakes waiters (at least those refused
    /// the lease within their TTL before the release); returns whether it was still held (a
    /// stale holder releases nothing).
    async fn release(&self, params: ReleaseParams) -> Result<bool>;

    /// Frees a lease whoever holds it; returns the record as it was, if it was held.
    async fn force_release(&self, params: ForceReleaseParams) -> Result<Option<Lease>>;

    /// Reads one lease record.
    async fn get(&self, name: &LeaseName) -> Result<Option<Lease>>;

    /// Reads every lease record, ordered by name.
    async fn list(&self) -> Result<Vec<Lease>>;

    /// Reads the leader-change history, oldest first.
    async fn history(&self, params: HistoryParams) -> Result<Page<LeaderChange>>;

    /// The store's current time, the clock every expiry is judged by.
    async fn now(&self) -> Result<StoreTime>;

    /// What this backend supports beyond the required operations.
    fn capabilities(&self) -> Capabilities;

    /// Subscribes to released leases; `None` when the backend cannot notify. A backend may
    /// announce only the releases someone waits for: those of leases that an acquisition was
    /// refused within its TTL before the release.
    async fn subscribe(&self) -> Result<Option<Box<dyn LeaseChanges>>>;
}
