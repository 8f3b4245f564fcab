//! Connecting an etcd lease store: the URL, the members' checks, the credentials.

use std::sync::Arc;

use baton_core::lease::Remembered;
use baton_core::{Error, LeaseName, Result};
use serde_json::json;

use crate::client::Client;
use crate::keys::{self, LeaseKeys};
use crate::options::EtcdOptions;
use crate::pending::PendingReleases;
use crate::record::{self, State};
use crate::sessions::Sessions;
use crate::url;
use crate::wire::{self, b64};

/// Leases kept in etcd: each held lease is a key attached to its holder's etcd lease, so etcd's
/// leader judges expiry; each acquisition's revision is its fencing token; a watch tells
/// waiters of releases and expiries.
///
/// Cheap to clone: clones share the connections. See the [crate documentation](crate) for what
/// etcd guarantees and what it cannot.
#[derive(Clone)]
pub struct EtcdLeaseStore {
    pub(crate) inner: Arc<Inner>,
}

pub(crate) struct Inner {
    pub(crate) client: Client,
    pub(crate) sessions: Sessions,
    pub(crate) pending: PendingReleases,
    pub(crate) history_length: u32,
    /// The state of leases as this store last wrote or read them: the basis of its next
    /// compare-and-set, never an answer by itself.
    states: Remembered<State>,
}

impl std::fmt::Debug for EtcdLeaseStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EtcdLeaseStore")
            .field("endpoint", &self.inner.client.endpoint())
            .finish_non_exhaustive()
    }
}

impl EtcdLeaseStore {
    /// Connects to `etcd://[user:password@]host:port[,host:port…]`, or over TLS to
    /// `etcds://…[?ca=PATH&cert=PATH&key=PATH]`, with default [`EtcdOptions`].
    ///
    /// Fails with one line, the password masked, if the URL is malformed or names TLS files
    /// that cannot be read, no member can be reached (a TLS handshake that fails says why), a
    /// member serves TLS only to an `etcd://` URL, the server is not etcd 3.4 or later, or it
    /// refuses the credentials or reads under `baton/`. Nothing is written.
    pub async fn connect(url: &str) -> Result<EtcdLeaseStore> {
        EtcdLeaseStore::connect_with(url, EtcdOptions::default()).await
    }

    /// Connects with the given options; see [`connect`](Self::connect).
    pub async fn connect_with(url: &str, options: EtcdOptions) -> Result<EtcdLeaseStore> {
        let client = Client::new(url::parse(url)?, options);
        check_version(&client).await?;
        client.authenticate().await?;
        let probe = json!({ "key": b64(b"baton/"), "range_end": b64(&wire::prefix_end(b"baton/")),
                            "count_only": true });
        let _: serde_json::Value =
            client.call("/v3/kv/range", &probe, "reading under baton/").await?;
        let inner = Inner {
            client,
            sessions: Sessions::default(),
            pending: PendingReleases::default(),
            history_length: options.history_length,
            states: Remembered::default(),
        };
        Ok(EtcdLeaseStore { inner: Arc::new(inner) })
    }
}

/// Refuses a server older than etcd 3.4, whose gateway serves the v3 API elsewhere.
async fn check_version(client: &Client) -> Result<()> {
    let version = client.version().await?;
    let server = version.get("etcdserver").and_then(|v| v.as_str()).unwrap_or_default().to_string();
    let parts: Vec<u32> = server.split('.').filter_map(|part| part.parse().ok()).collect();
    if parts.len() < 2 || (parts[0], parts[1]) < (3, 4) {
        return Err(Error::invalid_input(format!(
            "etcd at {} is version {}: baton needs etcd 3.4 or later",
            client.endpoint(),
            baton_core::echo::quoted(&server)
        )));
    }
    Ok(())
}

impl Inner {
    /// The state this store last saw for `name`, or an empty one.
    pub(crate) fn remembered(&self, name: &LeaseName) -> State {
        self.states.get(name.as_str()).unwrap_or_default()
    }

    /// Remembers the state of `name` as just written or read.
    pub(crate) fn remember(&self, name: &LeaseName, state: State) {
        self.states.remember(name.as_str(), state);
    }

    /// Reads the keys of one lease together: in one round trip when the etcd lease carrying
    /// its latest term is the one this store last saw, in two otherwise.
    pub(crate) async fn read_state(&self, name: &LeaseName) -> Result<State> {
        let carrier = self.remembered(name).carrier().unwrap_or(0);
        let txn = wire::txn(vec![], record::reads(&LeaseKeys::of(name), carrier), vec![]);
        let answer = self.client.txn(&txn, format!("reading lease {name}")).await?;
        let mut state = State::read(&answer, 0, carrier);
        self.complete(&mut state).await?;
        self.remember(name, state.clone());
        Ok(state)
    }

    /// Reads the renewal of the etcd lease carrying the latest term, if `state` lacks it.
    pub(crate) async fn complete(&self, state: &mut State) -> Result<()> {
        if let Some(carrier) = state.missing_renewal() {
            let txn = wire::txn(vec![], vec![wire::op::get(&keys::renewal(carrier))], vec![]);
            let answer = self.client.txn(&txn, "reading the last renewal of a lease").await?;
            (state.renewal, state.renewal_of) = (answer.first(0), carrier);
        }
        Ok(())
    }
}
