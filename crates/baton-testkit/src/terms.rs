//! A leader lease's terms as its store shows them, for harnesses that watch a leader and ask
//! it to step down from outside.

use std::time::Duration;

use baton::core::ForceReleaseParams;
use baton::{Lease, LeaseName, LeaseStore, StoreTime};

use crate::evented::EventedProcess;
use crate::faults::PATIENCE;

/// How often the store is read while a term is awaited.
const POLL: Duration = Duration::from_millis(50);

/// Waits until `leases` shows `name` held, on its own clock, under a token greater than
/// `after`, and answers that term; panics after `within`.
pub async fn wait_term(
    leases: &dyn LeaseStore,
    name: &LeaseName,
    after: u64,
    within: Duration,
) -> Lease {
    let deadline = tokio::time::Instant::now() + within;
    loop {
        let now = leases.now().await.expect("reading the lease store's clock");
        if let Some(lease) = leases.get(name).await.expect("reading the leader lease")
            && lease.holder_at(now).is_some()
            && token_of(&lease) > after
        {
            return lease;
        }
        assert!(tokio::time::Instant::now() < deadline, "no new {name} term within {within:?}");
        tokio::time::sleep(POLL).await;
    }
}

/// Force-releases `name`, held under token `after`, as an operator does, and waits up to
/// `within` for the next term; answers it and how long after the release it began, on the
/// lease store's clock, which stamps both. Panics unless it began within `ttl`: a forced
/// release must not wait for the lease to expire.
pub async fn force_release(
    leases: &dyn LeaseStore,
    name: &LeaseName,
    after: u64,
    ttl: Duration,
    within: Duration,
) -> (Lease, Duration) {
    let released_at = leases.now().await.expect("reading the lease store's clock");
    let params = ForceReleaseParams { name: name.clone() };
    leases.force_release(params).await.expect("force-releasing the lease");
    let next = wait_term(leases, name, after, within).await;
    let gap = next.acquired_at.saturating_since(released_at);
    assert!(gap < ttl, "{name}: the next term began {gap:?} after the forced release");
    (next, gap)
}

/// The term's token as a number.
pub fn token_of(lease: &Lease) -> u64 {
    u64::try_from(lease.token.to_store()).expect("tokens are positive")
}

/// The term's holder.
pub fn holder_of(lease: &Lease) -> String {
    lease.holder.as_ref().expect("a held lease has a holder").as_str().to_string()
}

/// Asks `node`, a process that answers `STEP-DOWN` with `STEPPED-DOWN true` when it led and
/// `STEPPED-DOWN false` when not, to step down until it answers that it led; answers when, on
/// `leases`' clock, the answered request was sent. The store shows a term before the node's
/// own acquisition returns (Azure Blob and Consul record a term in several calls), and a node
/// asked in between answers that it is not leading yet.
pub async fn step_down(node: &mut EventedProcess, leases: &dyn LeaseStore) -> StoreTime {
    let deadline = tokio::time::Instant::now() + PATIENCE;
    loop {
        let asked_at = leases.now().await.expect("reading the lease store's clock");
        node.send_line("STEP-DOWN").await;
        let (answer, _) = node.expect("STEPPED-DOWN", PATIENCE).await;
        if answer.detail == "true" {
            return asked_at;
        }
        let name = node.name().to_string();
        assert!(tokio::time::Instant::now() < deadline, "{name} never knew it led");
        tokio::time::sleep(POLL).await;
    }
}
