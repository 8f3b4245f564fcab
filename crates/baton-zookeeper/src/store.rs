//! The ZooKeeper lease store: connecting, and the [`LeaseStore`] operations.

use std::sync::Arc;

use async_trait::async_trait;
use baton_core::{
    AcquireOutcome, AcquireParams, Capabilities, ForceReleaseParams, HistoryParams, LeaderChange,
    Lease, LeaseChanges, LeaseName, LeaseStore, Page, ReleaseParams, RenewAllOutcome,
    RenewAllParams, RenewParams, Result, StoreTime,
};

use crate::changes::Waiters;
use crate::known::Known;
use crate::session::Session;
use crate::{acquire, history, reads, term, url};

/// Leases kept in a ZooKeeper ensemble: a persistent record node per lease, an ephemeral term
/// node per holder whose creation zxid is the fencing token, judged on the ensemble's clock,
/// with persistent leader-change records and watches for handover.
///
/// Cheap to clone: clones share one session. See the [crate documentation](crate) for what
/// ZooKeeper guarantees and what it cannot.
#[derive(Clone)]
pub struct ZkLeaseStore {
    inner: Arc<Inner>,
}

pub(crate) struct Inner {
    pub(crate) session: Session,
    pub(crate) known: Known,
    pub(crate) waiters: Arc<Waiters>,
}

impl std::fmt::Debug for ZkLeaseStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ZkLeaseStore")
            .field("url", &self.inner.session.target)
            .finish_non_exhaustive()
    }
}

impl ZkLeaseStore {
    /// Connects to `zk://[USER:PASSWORD@]HOST:PORT[,HOST:PORT…][/CHROOT][?session_timeout=D]`
    /// (the session timeout asked for is 30 s unless given; the ensemble may grant another).
    ///
    /// Fails with one line, the password masked, if the URL is malformed, no member can be
    /// reached, the chroot does not exist (baton does not create it), or the credentials
    /// cannot read baton's nodes. Nothing is written.
    pub async fn connect(url: &str) -> Result<ZkLeaseStore> {
        let session = Session::open(url::parse(url)?).await?;
        let inner = Inner { session, known: Known::default(), waiters: Arc::default() };
        Ok(ZkLeaseStore { inner: Arc::new(inner) })
    }

    /// The session timeout the ensemble granted: the longest TTL this store accepts.
    pub fn session_timeout(&self) -> std::time::Duration {
        self.inner.session.timeout()
    }
}

#[async_trait]
impl LeaseStore for ZkLeaseStore {
    async fn acquire(&self, params: AcquireParams) -> Result<AcquireOutcome> {
        acquire::acquire(&self.inner, params).await
    }

    async fn renew(&self, params: RenewParams) -> Result<Lease> {
        term::renew(&self.inner, params).await
    }

    async fn renew_all(&self, params: RenewAllParams) -> Result<RenewAllOutcome> {
        term::renew_all(&self.inner, params).await
    }

    async fn release(&self, params: ReleaseParams) -> Result<bool> {
        term::release(&self.inner, params).await
    }

    async fn force_release(&self, params: ForceReleaseParams) -> Result<Option<Lease>> {
        term::force_release(&self.inner, &params.name).await
    }

    async fn get(&self, name: &LeaseName) -> Result<Option<Lease>> {
        let session = &self.inner.session;
        let client = session.client().await?;
        reads::sync(session, &client).await?;
        let (current, _) = reads::current(session, &client, name, false).await?;
        Ok(current.map(|current| current.lease))
    }

    async fn list(&self) -> Result<Vec<Lease>> {
        reads::all(&self.inner.session).await
    }

    async fn history(&self, params: HistoryParams) -> Result<Page<LeaderChange>> {
        history::read(&self.inner.session, params).await
    }

    async fn now(&self) -> Result<StoreTime> {
        reads::now(&self.inner.session).await
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities::default().with_change_notification(true)
    }

    async fn subscribe(&self) -> Result<Option<Box<dyn LeaseChanges>>> {
        Ok(Some(self.inner.waiters.subscribe()))
    }
}
