//! The elector over the in-memory backend, with tokio's paused clock: no test waits on real
//! time, and every wait is on a signal (a guard's cancellation, a watch channel, a task).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use baton::core::layer::{CallFuture, Layer, Layered};
use baton::core::memory::MemoryLeaseStore;
use baton::core::time::ManualClock;
use baton::core::{AcquireOutcome, AcquireParams, ForceReleaseParams};
use baton::{
    Acquisition, ChangeReason, Elector, ElectorConfig, Error, ErrorKind, HistoryParams, HolderId,
    Leadership, LeaseName, LeaseStore, StoreTime,
};
use tokio::sync::watch;

/// Switches around a lease store (the in-memory one unless given another): renewals that hang,
/// like a cut network, acquisitions that time out before reaching the store, subscriptions to
/// its change feed held back.
struct Cuttable {
    renewals_hang: AtomicBool,
    acquisitions_time_out: AtomicBool,
    acquisitions_refused: AtomicBool,
    renew_calls: AtomicUsize,
    subscriptions_held: watch::Sender<bool>,
    acquisitions_answered: watch::Sender<usize>,
}

impl Cuttable {
    /// `inner` behind a new set of switches, all off.
    fn over(inner: Arc<dyn LeaseStore>) -> (Arc<dyn LeaseStore>, Arc<Cuttable>) {
        let cut = Arc::new(Cuttable {
            renewals_hang: AtomicBool::new(false),
            acquisitions_time_out: AtomicBool::new(false),
            acquisitions_refused: AtomicBool::new(false),
            renew_calls: AtomicUsize::new(0),
            subscriptions_held: watch::Sender::new(false),
            acquisitions_answered: watch::Sender::new(0),
        });
        (Arc::new(Layered::new(inner, cut.clone())), cut)
    }

    /// The in-memory store behind a new set of switches.
    fn memory() -> (Arc<dyn LeaseStore>, Arc<Cuttable>) {
        Cuttable::over(Arc::new(MemoryLeaseStore::default()))
    }

    /// Resolves once `count` acquisitions were answered.
    async fn answered(&self, count: usize) {
        let mut answered = self.acquisitions_answered.subscribe();
        answered.wait_for(|answered| *answered >= count).await.unwrap();
    }
}

impl Layer for Cuttable {
    fn call<'a, T: Send + 'a>(
        &'a self,
        op: &'static str,
        call: CallFuture<'a, T>,
    ) -> CallFuture<'a, T> {
        Box::pin(async move {
            match op {
                "lease_acquire" if self.acquisitions_time_out.load(Ordering::SeqCst) => {
                    return Err(Error::new(ErrorKind::Timeout, "the acquisition timed out"));
                }
                "lease_acquire" if self.acquisitions_refused.load(Ordering::SeqCst) => {
                    return Err(Error::invalid_input("the store refuses this holder"));
                }
                "lease_acquire" => {
                    let outcome = call.await;
                    self.acquisitions_answered.send_modify(|answered| *answered += 1);
                    return outcome;
                }
                "lease_renew_all" => {
                    self.renew_calls.fetch_add(1, Ordering::SeqCst);
                    if self.renewals_hang.load(Ordering::SeqCst) {
                        std::future::pending::<()>().await;
                    }
                }
                "lease_subscribe" => {
                    let mut held = self.subscriptions_held.subscribe();
                    held.wait_for(|held| !*held).await.unwrap();
                }
                _ => {}
            }
            call.await
        })
    }
}

fn elector(store: Arc<dyn LeaseStore>, holder: &str) -> Elector {
    Elector::new(store, ElectorConfig::new(HolderId::new(holder).unwrap())).unwrap()
}

fn lease() -> LeaseName {
    "settlement".parse().unwrap()
}

#[tokio::test(start_paused = true)]
async fn a_held_lease_is_refused_and_handed_over_on_release() {
    let store: Arc<dyn LeaseStore> = Arc::new(MemoryLeaseStore::default());
    let (a, b) = (elector(store.clone(), "a"), elector(store.clone(), "b"));
    let guard = a.acquire(&lease()).await.unwrap();
    guard.ensure_valid().unwrap();
    match b.try_acquire(&lease()).await.unwrap() {
        Acquisition::Held(held) => assert_eq!(held.holder, Some(HolderId::new("a").unwrap())),
        other => panic!("expected held, got {other:?}"),
    }
    let waiter = tokio::spawn(async move { b.acquire(&lease()).await.map(|g| g.token()) });
    let first_token = guard.token();
    assert!(guard.release().await.unwrap());
    let next_token = waiter.await.unwrap().unwrap();
    assert!(next_token > first_token);
    let history = store.history(HistoryParams::default()).await.unwrap();
    let reasons: Vec<_> = history.items.iter().map(|c| c.reason).collect();
    assert_eq!(reasons, [ChangeReason::Fresh, ChangeReason::Handover]);
}

#[tokio::test(start_paused = true)]
async fn a_release_before_the_waiters_feed_is_subscribed_still_wakes_it() {
    let memory: Arc<dyn LeaseStore> = Arc::new(MemoryLeaseStore::default());
    let (late_store, late) = Cuttable::over(memory.clone());
    late.subscriptions_held.send_replace(true);
    let (a, b) = (elector(memory, "a"), elector(late_store, "b"));
    let guard = a.acquire(&lease()).await.unwrap();
    let first_token = guard.token();
    let waiter = tokio::spawn(async move { b.acquire(&lease()).await.map(|g| g.token()) });
    late.answered(1).await;

    // Released while b waits for the expiry and before its feed is subscribed.
    assert!(guard.release().await.unwrap());
    late.subscriptions_held.send_replace(false);
    let woken = tokio::time::timeout(Duration::from_secs(1), waiter).await;
    let token = woken.expect("the waiter is woken once its feed is subscribed, not at the expiry");
    assert!(token.unwrap().unwrap() > first_token);
}

#[tokio::test(start_paused = true)]
async fn renewals_keep_the_lease_past_its_ttl() {
    let store: Arc<dyn LeaseStore> = Arc::new(MemoryLeaseStore::default());
    let a = elector(store.clone(), "a");
    let guard = a.acquire(&lease()).await.unwrap();
    let initial_deadline = guard.deadline();
    tokio::time::sleep(Duration::from_secs(25)).await;
    guard.ensure_valid().unwrap();
    assert!(guard.deadline() > initial_deadline + Duration::from_secs(15));
}

#[tokio::test(start_paused = true)]
async fn a_lease_taken_away_in_the_store_cancels_the_guard() {
    let store: Arc<dyn LeaseStore> = Arc::new(MemoryLeaseStore::default());
    let a = elector(store.clone(), "a");
    let guard = a.acquire(&lease()).await.unwrap();
    store.force_release(ForceReleaseParams { name: lease() }).await.unwrap();
    guard.cancelled().await;
    let err = guard.ensure_valid().unwrap_err();
    assert_eq!(err.kind(), ErrorKind::LeaseLost);
    assert!(err.to_string().contains("no longer lists this process"), "{err}");
}

#[tokio::test(start_paused = true)]
async fn a_holder_cut_from_the_store_steps_down_at_its_deadline_before_expiry() {
    let (store, cut) = Cuttable::memory();
    let a = elector(store, "a");
    let started = tokio::time::Instant::now();
    let guard = a.acquire(&lease()).await.unwrap();
    cut.renewals_hang.store(true, Ordering::SeqCst);
    guard.cancelled().await;
    let stepped_down_after = started.elapsed();
    let config = a.config();
    assert!(stepped_down_after >= config.renew_deadline, "{stepped_down_after:?}");
    assert!(stepped_down_after < config.ttl, "must stop before the TTL: {stepped_down_after:?}");
    assert_eq!(guard.ensure_valid().unwrap_err().kind(), ErrorKind::LeaseLost);
}

#[tokio::test(start_paused = true)]
async fn a_stalled_process_sees_the_loss_before_its_next_write() {
    let store: Arc<dyn LeaseStore> = Arc::new(MemoryLeaseStore::default());
    let a = elector(store.clone(), "a");
    let guard = a.acquire(&lease()).await.unwrap();
    guard.ensure_valid().unwrap();
    // Moving the paused clock without letting any task run is what a SIGSTOP looks like.
    tokio::time::advance(a.config().stall_threshold + Duration::from_millis(100)).await;
    let err = guard.ensure_valid().unwrap_err();
    assert!(err.to_string().contains("stalled"), "{err}");
}

#[tokio::test(start_paused = true)]
async fn campaign_publishes_leadership_and_campaigns_again_after_a_loss() {
    let store: Arc<dyn LeaseStore> = Arc::new(MemoryLeaseStore::default());
    let a = elector(store.clone(), "a");
    let campaign = a.campaign(lease());
    let mut watch = campaign.watch();
    let first = campaign.leader().await.unwrap();
    store.force_release(ForceReleaseParams { name: lease() }).await.unwrap();
    first.cancelled().await;
    let second = loop {
        watch.changed().await.unwrap();
        if let Leadership::Leader(handle) = &*watch.borrow()
            && handle.token() > first.token()
        {
            break handle.clone();
        }
    };
    second.ensure_valid().unwrap();
    drop(campaign);
    second.cancelled().await;
}

#[tokio::test(start_paused = true)]
async fn shutdown_releases_every_lease_for_an_immediate_handover() {
    let store: Arc<dyn LeaseStore> = Arc::new(MemoryLeaseStore::default());
    let a = elector(store.clone(), "a");
    let names: Vec<LeaseName> = (0..3).map(|i| format!("job-{i}").parse().unwrap()).collect();
    let mut guards = Vec::new();
    for name in &names {
        guards.push(a.acquire(name).await.unwrap());
    }
    a.shutdown().await;
    for guard in &guards {
        assert!(guard.is_cancelled());
    }
    let b = elector(store.clone(), "b");
    for name in &names {
        assert!(matches!(b.try_acquire(name).await.unwrap(), Acquisition::Acquired(_)));
    }
    let err = a.try_acquire(&names[0]).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Unavailable);
}

#[tokio::test]
async fn invalid_timing_is_rejected_before_anything_starts() {
    let store: Arc<dyn LeaseStore> = Arc::new(MemoryLeaseStore::default());
    let mut config = ElectorConfig::new(HolderId::new("a").unwrap());
    config.renew_interval = Duration::from_secs(8);
    let err = Elector::new(store, config).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidInput);
    assert!(err.to_string().contains("renew interval (8s)"), "{err}");
}

#[tokio::test(start_paused = true)]
async fn one_renewal_call_per_interval_covers_every_held_lease() {
    let (store, cut) = Cuttable::memory();
    let a = elector(store, "a");
    let mut guards = Vec::new();
    for i in 0..100 {
        guards.push(a.acquire(&format!("l{i}").parse().unwrap()).await.unwrap());
    }
    let intervals = 10;
    tokio::time::sleep(a.config().renew_interval * intervals).await;
    for guard in &guards {
        guard.ensure_valid().unwrap();
    }
    let calls = cut.renew_calls.load(Ordering::SeqCst);
    assert!(calls <= intervals as usize + 1, "{calls} renewal calls for 100 leases");
}

#[tokio::test(start_paused = true)]
async fn a_campaign_that_steps_down_hands_over_at_once_and_stays_out() {
    let store: Arc<dyn LeaseStore> = Arc::new(MemoryLeaseStore::default());
    let (a, b) = (elector(store.clone(), "a"), elector(store.clone(), "b"));
    let first = a.campaign(lease());
    let first_term = first.leader().await.unwrap();
    let second = b.campaign(lease());
    assert!(!second.step_down().await, "a follower has nothing to give up");
    let stepped = tokio::time::Instant::now();
    assert!(first.step_down().await, "the leader steps down");
    assert!(first_term.is_cancelled(), "the term ends before the step-down answers");
    let second_term = second.leader().await.unwrap();
    // The paused clock moves only when every task waits on a timer: a handover that waited
    // for a retry period or the TTL would show here.
    let gap = stepped.elapsed();
    assert!(gap < Duration::from_millis(50), "handover took {gap:?}");
    assert!(second_term.token() > first_term.token());
    tokio::time::sleep(a.config().ttl * 3).await;
    second_term.ensure_valid().unwrap();
    assert!(matches!(*first.watch().borrow(), Leadership::Follower));
    assert!(!first.step_down().await);
    let history = store.history(HistoryParams::default()).await.unwrap();
    let reasons: Vec<_> = history.items.iter().map(|c| c.reason).collect();
    assert_eq!(reasons, [ChangeReason::Fresh, ChangeReason::Handover]);
}

#[tokio::test(start_paused = true)]
async fn a_lone_campaign_leads_again_after_standing_aside() {
    let store: Arc<dyn LeaseStore> = Arc::new(MemoryLeaseStore::default());
    let a = elector(store.clone(), "a");
    let campaign = a.campaign(lease());
    let first = campaign.leader().await.unwrap();
    let stepped = tokio::time::Instant::now();
    assert!(campaign.step_down().await);
    let again = campaign.leader().await.unwrap();
    assert!(again.token() > first.token());
    let config = a.config();
    let stood_aside = stepped.elapsed();
    assert!(stood_aside >= config.retry_period * 2, "back after {stood_aside:?}");
    assert!(stood_aside < config.ttl, "back after {stood_aside:?}");
}

#[tokio::test(start_paused = true)]
async fn a_campaign_the_store_refuses_for_good_closes_its_channel_and_says_why() {
    let (store, cut) = Cuttable::memory();
    cut.acquisitions_refused.store(true, Ordering::SeqCst);
    let campaign = elector(store, "a").campaign(lease());
    let mut watch = campaign.watch();
    let err = campaign.leader().await.expect_err("the campaign cannot lead");
    assert_eq!(err.kind(), ErrorKind::InvalidInput, "{err}");
    assert!(err.to_string().contains("the store refuses this holder"), "{err}");
    assert!(watch.changed().await.is_err(), "the leadership channel closed");
}

#[tokio::test(start_paused = true)]
async fn a_terms_cancellation_token_fires_when_the_term_ends_and_not_the_other_way() {
    let store: Arc<dyn LeaseStore> = Arc::new(MemoryLeaseStore::default());
    let a = elector(store.clone(), "a");
    let guard = a.acquire(&lease()).await.unwrap();
    let handed = guard.cancellation_token();
    handed.cancel();
    guard.ensure_valid().expect("cancelling the handed-out token leaves the term");
    let work = guard.handle().cancellation_token();
    store.force_release(ForceReleaseParams { name: lease() }).await.unwrap();
    work.cancelled().await;
    assert!(guard.ensure_valid().is_err(), "the term ended");
}

/// A store judged by a clock the test moves, behind switches.
fn store_with_clock() -> (Arc<dyn LeaseStore>, Arc<Cuttable>, Arc<ManualClock>) {
    let clock = Arc::new(ManualClock::new(StoreTime::from_millis(1_000_000)));
    let memory = Arc::new(MemoryLeaseStore::with_clock(clock.clone()));
    let (store, cut) = Cuttable::over(memory);
    (store, cut, clock)
}

#[tokio::test(start_paused = true)]
async fn an_expired_record_naming_this_holder_is_not_a_term_after_an_unknown_outcome() {
    let (store, cut, clock) = store_with_clock();
    // An earlier term of holder a, left behind in the store and expired on its clock.
    let params = AcquireParams {
        name: lease(),
        holder: HolderId::new("a").unwrap(),
        ttl: Duration::from_secs(10),
    };
    let earlier = match store.acquire(params).await.unwrap() {
        AcquireOutcome::Acquired { lease, .. } => lease.token,
        other => panic!("expected acquired, got {other:?}"),
    };
    clock.advance(Duration::from_secs(11));
    let (a, b) = (elector(store.clone(), "a"), elector(store.clone(), "b"));

    // a's acquisition times out; reading back finds the expired record naming a.
    cut.acquisitions_time_out.store(true, Ordering::SeqCst);
    let err = a.try_acquire(&lease()).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Timeout, "{err}");
    cut.acquisitions_time_out.store(false, Ordering::SeqCst);

    // The lease is free on the store's clock, and b takes it: a has no term to act under.
    let Acquisition::Acquired(guard) = b.try_acquire(&lease()).await.unwrap() else {
        panic!("b must acquire the expired lease");
    };
    assert!(guard.token() > earlier);
}

#[tokio::test(start_paused = true)]
async fn a_live_record_naming_this_holder_becomes_a_term_once_a_renewal_confirms_it() {
    let (store, cut, _clock) = store_with_clock();
    let a = elector(store.clone(), "a");
    // The acquisition reaches the store, but its answer is lost.
    let params =
        AcquireParams { name: lease(), holder: HolderId::new("a").unwrap(), ttl: a.config().ttl };
    store.acquire(params).await.unwrap();
    cut.acquisitions_time_out.store(true, Ordering::SeqCst);
    let sent = tokio::time::Instant::now();
    let Acquisition::Acquired(guard) = a.try_acquire(&lease()).await.unwrap() else {
        panic!("the confirmed record is a term");
    };
    guard.ensure_valid().unwrap();
    assert!(guard.deadline() >= sent + a.config().renew_deadline);
}

#[tokio::test(start_paused = true)]
async fn dropping_the_last_elector_ends_every_term_it_owns() {
    let store: Arc<dyn LeaseStore> = Arc::new(MemoryLeaseStore::default());
    let a = elector(store.clone(), "a");
    let first = a.acquire(&lease()).await.unwrap();
    let second = a.acquire(&"other".parse().unwrap()).await.unwrap().handle();
    drop(a);
    first.cancelled().await;
    second.cancelled().await;
    let err = second.ensure_valid().unwrap_err();
    assert_eq!(err.kind(), ErrorKind::LeaseLost, "{err}");
    // The leases are released for the next holder, without waiting for their TTL.
    let b = elector(store, "b");
    let taken = tokio::time::timeout(Duration::from_secs(1), b.acquire(&lease())).await;
    taken.expect("released at once").unwrap();
}

#[tokio::test(start_paused = true)]
async fn acquiring_a_lease_the_elector_already_holds_answers_at_once() {
    let store: Arc<dyn LeaseStore> = Arc::new(MemoryLeaseStore::default());
    let a = elector(store, "a");
    let guard = a.acquire(&lease()).await.unwrap();
    let again = tokio::time::timeout(Duration::from_secs(1), a.acquire(&lease())).await;
    let err = again.expect("answers at once").unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidInput);
    assert!(err.to_string().contains("already held by this elector"), "{err}");
    guard.ensure_valid().unwrap();
    guard.release().await.unwrap();
    a.acquire(&lease()).await.unwrap();
}
