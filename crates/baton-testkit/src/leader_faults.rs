//! Fault scenarios on a replicated store: its own leader dies while lease holders run, as
//! separate processes, against a cluster of three. Each ends by checking the fenced ledger and
//! that no token was issued twice.
//!
//! `kill_leader` kills the store's leader and answers how long the survivors took to elect a
//! new one; the bounds below add that election to the TTL and the retry period.

use std::time::{Duration, Instant};

use crate::faults::{PATIENCE, Setup};
use crate::holder::HolderProcess;

/// What a scenario measured.
#[derive(Debug, Clone, Copy)]
pub struct LeaderFault {
    /// How long the store took to elect a new leader.
    pub election: Duration,
    /// From the kill of the store's leader to the next write under a valid lease.
    pub restored: Duration,
}

/// The store's leader dies while a lease is held: within TTL + retry + the election, a holder
/// (the same or the other one) writes again; then the holder of the moment is killed and the
/// other one takes over on the two surviving members. No stale write lands and tokens rise.
pub async fn leader_killed_while_a_lease_is_held(
    setup: &Setup,
    kill_leader: impl FnOnce() -> Duration,
) -> LeaderFault {
    let (mut a, mut b) = writer_and_contender(setup).await;
    a.drain();
    b.drain();
    let killed = Instant::now();
    let election = kill_leader();
    let (a_writes, wrote) = tokio::select! {
        (event, _) = a.expect("WROTE", PATIENCE) => (true, event),
        (event, _) = b.expect("WROTE", PATIENCE) => (false, event),
    };
    let restored = wrote.at.duration_since(killed);
    let bound = setup.takeover_bound() + election;
    assert!(restored <= bound, "writes resumed {restored:?} after the kill, bound {bound:?}");
    let (holder, other) = if a_writes { (&mut a, &mut b) } else { (&mut b, &mut a) };
    holder.kill9().await;
    let killed = Instant::now();
    let (taken, _) = other.expect("ACQUIRED", PATIENCE).await;
    let failover = taken.at.duration_since(killed);
    let bound = setup.takeover_bound();
    assert!(failover <= bound, "the takeover took {failover:?}, bound {bound:?}");
    other.expect("WROTE", PATIENCE).await;
    check_tokens(&[&a, &b]);
    setup.check_ledger().await;
    LeaderFault { election, restored }
}

/// The store's leader dies while a lease is being acquired: the holder is killed, and the
/// store's leader is killed just before the holder's lease expires, so that the other holder's
/// acquisition meets the election (and the new leader's extension of every lease by its TTL).
/// The other holder takes over within TTL + retry + the election of that moment.
pub async fn leader_killed_while_a_lease_is_acquired(
    setup: &Setup,
    kill_leader: impl FnOnce() -> Duration,
) -> LeaderFault {
    let (mut a, mut b) = writer_and_contender(setup).await;
    a.kill9().await;
    // Not a wait for a result: this places the fault where the acquisition happens.
    tokio::time::sleep(setup.ttl - Duration::from_millis(300)).await;
    let killed = Instant::now();
    let election = kill_leader();
    let (taken, _) = b.expect("ACQUIRED", PATIENCE).await;
    let restored = taken.at.duration_since(killed);
    let bound = setup.takeover_bound() + election;
    assert!(restored <= bound, "b took over {restored:?} after the kill, bound {bound:?}");
    b.expect("WROTE", PATIENCE).await;
    check_tokens(&[&a, &b]);
    setup.check_ledger().await;
    LeaderFault { election, restored }
}

/// Holder `a`, once it holds the lease and wrote under it, and holder `b`, contending.
async fn writer_and_contender(setup: &Setup) -> (HolderProcess, HolderProcess) {
    let mut a = setup.holder("a").await;
    a.expect("ACQUIRED", PATIENCE).await;
    a.expect("WROTE", PATIENCE).await;
    (a, setup.holder("b").await)
}

/// Every token the holders announced is distinct, and they rise in the order announced.
fn check_tokens(holders: &[&HolderProcess]) {
    let mut acquired: Vec<_> = holders
        .iter()
        .flat_map(|holder| holder.history())
        .filter(|event| event.kind == "ACQUIRED")
        .collect();
    acquired.sort_by_key(|event| event.at);
    let tokens: Vec<_> = acquired.iter().map(|event| event.token().expect("a token")).collect();
    assert!(tokens.windows(2).all(|pair| pair[0] < pair[1]), "a token was reissued: {tokens:?}");
}
