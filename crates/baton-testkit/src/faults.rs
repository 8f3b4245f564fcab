//! Fault scenarios with lease holders as separate processes, shared by every backend's fault
//! tests. Each scenario ends by checking the fenced ledger: no stale write was ever accepted.

use std::time::{Duration, Instant};

use baton::LeaseName;

use crate::fake_clock::FakeClock;
use crate::holder::HolderProcess;
use crate::ledger::{Ledger, LedgerReport};
use crate::proxy::{FaultProxy, Mode};
use crate::terms;

/// The TTL fault tests give their holders unless the store grants nothing that short: renew
/// every 600 ms, step down 2.1 s after the last successful renewal, retry every 300 ms ± 20 %.
pub const TTL: Duration = Duration::from_secs(3);
/// What a busy two-core test machine adds to a measured handover: process scheduling, one store
/// round trip and the report line crossing a pipe.
pub const MEASUREMENT_ALLOWANCE: Duration = Duration::from_secs(1);
/// The retry period of a holder or node with `ttl`, jitter included: a tenth of it, + 20 %.
pub fn retry_with_jitter(ttl: Duration) -> Duration {
    ttl * 12 / 100
}

/// How long to wait for events that have no bound of their own (startup, first write).
pub const PATIENCE: Duration = Duration::from_secs(30);

/// Where the holders run.
#[derive(Debug, Clone)]
pub struct Setup {
    /// Path of the `baton-test-holder` binary.
    pub binary: String,
    /// Backend URL the holders take their leases from.
    pub url: String,
    /// URL of the SQL store holding the fenced ledger: `url` itself, or a store beside a
    /// lease-only one.
    pub ledger: String,
    /// The lease they compete for.
    pub lease: String,
    /// The TTL they ask for: [`TTL`], or the store's shortest where that is longer. A holder
    /// renews every fifth of it, steps down at seven tenths after its last renewal and retries
    /// every tenth, ± 20 %.
    pub ttl: Duration,
    /// The holders' clocks: the host's, or set off from them (F6).
    pub clock: FakeClock,
}

impl Setup {
    /// How long a crashed holder's lease can keep another holder waiting, measured from the
    /// crash to the other's grant: the TTL, the retry period and [`MEASUREMENT_ALLOWANCE`].
    pub fn takeover_bound(&self) -> Duration {
        self.ttl + retry_with_jitter(self.ttl) + MEASUREMENT_ALLOWANCE
    }

    /// Starts a holder named `writer` on `url` and waits until it is connected. A ledger kept
    /// in the lease store is reached through `url` too, so that a cut store cuts both.
    pub async fn holder_on(&self, url: &str, writer: &str) -> HolderProcess {
        self.spawn_holder(url, writer, self.clock).await
    }

    /// Starts a holder named `writer` whose clocks are `clock`, and waits until it is
    /// connected.
    pub async fn holder_with_clock(&self, writer: &str, clock: FakeClock) -> HolderProcess {
        self.spawn_holder(&self.url, writer, clock).await
    }

    async fn spawn_holder(&self, url: &str, writer: &str, clock: FakeClock) -> HolderProcess {
        let ledger = if self.ledger == self.url { url } else { &self.ledger };
        let urls = [url, ledger, &self.lease];
        let mut holder = HolderProcess::spawn(&self.binary, urls, self.ttl, writer, clock);
        holder.expect("READY", PATIENCE).await;
        holder
    }

    /// How long after the last renewal's send a holder steps down, in real time: seven tenths
    /// of the TTL on its own clock.
    pub fn renew_deadline(&self) -> Duration {
        (self.ttl * 7 / 10).div_f64(self.clock.rate)
    }

    /// Starts a holder on the setup's URL.
    pub async fn holder(&self, writer: &str) -> HolderProcess {
        self.holder_on(&self.url, writer).await
    }

    /// Checks the ledger: no stale write accepted, and no write made after its term's deadline
    /// had passed on the writer's own clock.
    pub async fn check_ledger(&self) -> LedgerReport {
        let ledger = Ledger::open(&self.ledger).await.expect("ledger");
        let report = ledger.check().await.expect("check");
        assert_eq!(report.stale_accepted, 0, "stale writes were accepted: {report:?}");
        assert_eq!(report.late, 0, "writes were made past their term's deadline: {report:?}");
        report
    }
}

/// `kill -9` of the holder: another holder takes over within TTL + retry period.
pub async fn killed_holder_is_replaced_within_ttl_and_retry(setup: &Setup) -> Duration {
    let mut a = setup.holder("a").await;
    let (acquired_a, _) = a.expect("ACQUIRED", PATIENCE).await;
    a.expect("WROTE", PATIENCE).await;
    let mut b = setup.holder("b").await;
    let killed = Instant::now();
    a.kill9().await;
    let (acquired_b, _) = b.expect("ACQUIRED", PATIENCE).await;
    let failover = killed.elapsed();
    assert!(
        acquired_b.token() > acquired_a.token(),
        "tokens must rise: {acquired_a:?} {acquired_b:?}"
    );
    let bound = setup.takeover_bound();
    assert!(failover <= bound, "failover took {failover:?}, more than {bound:?}");
    b.expect("WROTE", PATIENCE).await;
    setup.check_ledger().await;
    failover
}

/// `SIGSTOP` of the holder past its TTL, then `SIGCONT`: another holder took over meanwhile;
/// the resumed holder notices its loss before any new write, and its deliberate stale write is
/// rejected by the fence.
pub async fn paused_holder_notices_its_loss_and_is_fenced(setup: &Setup) {
    let mut a = setup.holder("a").await;
    a.expect("ACQUIRED", PATIENCE).await;
    a.expect("WROTE", PATIENCE).await;
    let mut b = setup.holder("b").await;
    a.pause(PATIENCE).await;
    let paused = Instant::now();
    b.expect("ACQUIRED", setup.takeover_bound()).await;
    b.expect("WROTE", PATIENCE).await;
    assert!(paused.elapsed() >= setup.ttl * 2 / 3, "b took over before a's lease could expire");
    a.drain();
    a.resume();
    let (lost, before_loss) = a.expect("LOST", PATIENCE).await;
    assert!(
        before_loss.is_empty(),
        "a wrote after resuming, before noticing its loss: {before_loss:?}"
    );
    let probe = a.next(PATIENCE).await;
    assert_eq!(probe.kind, "PROBE");
    assert!(probe.detail.starts_with("REJECTED"), "the fence accepted a stale write: {probe:?}");
    assert_eq!(probe.token(), lost.token());
    let report = setup.check_ledger().await;
    assert!(report.rejected >= 1, "{report:?}");
}

/// An operator force-releases the lease while holder `a` leads and writes: another term
/// begins under a greater token well before the lease could have expired, `a` learns of its
/// loss at its next renewal, and the ledger holds no stale and no late write, whatever order
/// `a`'s last writes and the next holder's first ones landed in. Answers how long after the
/// release the next term began (on the lease store's clock) and how long `a` went on leading
/// (real time).
pub async fn forced_release_is_fenced(setup: &Setup) -> (Duration, Duration) {
    let leases = baton::connect_leases(&setup.url).await.expect("connecting to the lease store");
    let name: LeaseName = setup.lease.parse().expect("a lease name");
    let mut a = setup.holder("a").await;
    let (acquired_a, _) = a.expect("ACQUIRED", PATIENCE).await;
    a.expect("WROTE", PATIENCE).await;
    let _b = setup.holder("b").await;
    let term = acquired_a.token().expect("a's token");
    let released = Instant::now();
    let bound = setup.takeover_bound();
    let (_, takeover) = terms::force_release(&*leases, &name, term, setup.ttl, bound).await;
    let (lost, _) = a.expect("LOST", PATIENCE).await;
    assert_eq!(lost.token(), Some(term), "{lost:?}");
    let went_on = lost.at.duration_since(released);
    let bound = (setup.ttl / 5).div_f64(setup.clock.rate) + MEASUREMENT_ALLOWANCE;
    assert!(went_on <= bound, "a led {went_on:?} after the forced release, bound {bound:?}");
    setup.check_ledger().await;
    (takeover, went_on)
}

/// A blackhole between the holder and the store: see [`cut_holder_steps_down_and_is_fenced_by`].
pub async fn cut_holder_steps_down_and_is_fenced(
    setup: &Setup,
    proxy: &FaultProxy,
    proxied_url: &str,
) {
    cut_holder_steps_down_and_is_fenced_by(setup, proxy, proxied_url, Mode::Blackhole).await;
}

/// The holder cut from the store by `cut` (a blackhole, or answers lost while requests still
/// reach the store): the holder steps down by its deadline, another holder takes over only
/// after that, and once the cut heals the old holder's deliberate stale write is rejected by
/// the fence (when the ledger is in the cut store). `proxied_url` reaches the store through
/// `proxy`.
pub async fn cut_holder_steps_down_and_is_fenced_by(
    setup: &Setup,
    proxy: &FaultProxy,
    proxied_url: &str,
    cut: Mode,
) {
    let mut a = setup.holder_on(proxied_url, "a").await;
    a.expect("ACQUIRED", PATIENCE).await;
    a.expect("WROTE", PATIENCE).await;
    let mut b = setup.holder("b").await;
    proxy.set_mode(cut);
    let cut_at = Instant::now();
    let (lost, _) = a.expect("LOST", PATIENCE).await;
    let renew_interval = (setup.ttl / 5).div_f64(setup.clock.rate);
    let bound = renew_interval + setup.renew_deadline() + MEASUREMENT_ALLOWANCE;
    let stepped_down = lost.at.duration_since(cut_at);
    assert!(
        stepped_down <= bound,
        "a stepped down {stepped_down:?} after the cut, bound {bound:?}"
    );
    let (acquired_b, _) = b.expect("ACQUIRED", PATIENCE).await;
    // Behind a blackhole a's release never arrives, so b waits for a's lease to expire, long
    // after a stepped down. When only answers are lost, the release arrives and b is granted
    // within milliseconds of the step-down: then the ledger judges the order (no write of a's
    // past its term's deadline), not the instants at which the test read the two lines.
    if matches!(cut, Mode::Blackhole) {
        assert!(acquired_b.at > lost.at, "b acquired before a stepped down");
    }
    assert!(acquired_b.token() > lost.token());
    b.expect("WROTE", PATIENCE).await;
    proxy.set_mode(Mode::Pass);
    if setup.ledger != setup.url {
        // The ledger beside a lease-only store was not cut: a's deliberate write reached it
        // at once, before anyone wrote under a newer token, and the fence rightly took it.
        setup.check_ledger().await;
        return;
    }
    let (probe, _) = a.expect("PROBE", PATIENCE).await;
    assert!(probe.detail.starts_with("REJECTED"), "after the heal: {probe:?}");
    let report = setup.check_ledger().await;
    assert!(report.rejected >= 1, "{report:?}");
}

/// A crash of the store while holders run, kept down until the holder stepped down, then a
/// restart: every token issued after the restart is greater than every token issued before.
pub async fn store_restart_never_reissues_a_token(
    setup: &Setup,
    crash: impl FnOnce(),
    restart: impl FnOnce(),
) {
    let mut a = setup.holder("a").await;
    let (first, _) = a.expect("ACQUIRED", PATIENCE).await;
    a.expect("WROTE", PATIENCE).await;
    let mut b = setup.holder("b").await;
    crash();
    a.expect("LOST", PATIENCE).await;
    restart();
    let restarted = Instant::now();
    let highest_before = first.token().expect("token");
    let next = tokio::select! {
        (event, _) = a.expect("ACQUIRED", PATIENCE) => event,
        (event, _) = b.expect("ACQUIRED", PATIENCE) => event,
    };
    assert!(
        next.token().expect("token") > highest_before,
        "token {:?} issued after the restart is not above {highest_before}",
        next.token()
    );
    assert!(next.at > restarted);
    setup.check_ledger().await;
}

/// The store itself stalls past the TTL (`stall` makes it answer nothing for longer than
/// the TTL, then run what queued up): the holder steps down by its deadline, before anyone
/// else can hold the lease; the next holder's token is greater; no stale write landed.
pub async fn stalled_store_lets_no_stale_write_land(setup: &Setup, stall: impl FnOnce()) {
    let mut a = setup.holder("a").await;
    let (first, _) = a.expect("ACQUIRED", PATIENCE).await;
    a.expect("WROTE", PATIENCE).await;
    let mut b = setup.holder("b").await;
    let stalled = Instant::now();
    stall();
    let (lost, _) = a.expect("LOST", PATIENCE).await;
    let bound = setup.ttl / 5 + setup.ttl * 7 / 10 + MEASUREMENT_ALLOWANCE;
    let stepped_down = lost.at.duration_since(stalled);
    assert!(
        stepped_down <= bound,
        "a stepped down {stepped_down:?} into the stall, bound {bound:?}"
    );
    let next = tokio::select! {
        (event, _) = a.expect("ACQUIRED", PATIENCE) => event,
        (event, _) = b.expect("ACQUIRED", PATIENCE) => event,
    };
    assert!(next.at > lost.at, "the lease was held again before a stepped down");
    assert!(next.token() > first.token(), "tokens must rise: {first:?} then {next:?}");
    setup.check_ledger().await;
}

/// The store slows down for the leader, every chunk each way held `delay` in the proxy, for
/// twice the TTL, then recovers: the leader keeps the lease or loses it, but never writes past
/// its term's deadline, and no stale write lands. Answers the ledger's report and how many
/// times the leadership changed hands. `proxied_url` reaches the store through `proxy`.
pub async fn slow_store_lets_no_late_write_land(
    setup: &Setup,
    proxy: &FaultProxy,
    proxied_url: &str,
    delay: Duration,
) -> (LedgerReport, usize) {
    let mut a = setup.holder_on(proxied_url, "a").await;
    a.expect("WROTE", PATIENCE).await;
    let mut b = setup.holder("b").await;
    proxy.set_mode(Mode::Delay(delay));
    // Not a wait for a result: this is how long the store stays slow.
    tokio::time::sleep(setup.ttl * 2).await;
    proxy.set_mode(Mode::Pass);
    a.drain();
    b.drain();
    tokio::select! {
        _ = a.expect("WROTE", PATIENCE) => {}
        _ = b.expect("WROTE", PATIENCE) => {}
    }
    let changes = [&a, &b]
        .iter()
        .flat_map(|holder| holder.history())
        .filter(|event| event.kind == "ACQUIRED")
        .count();
    (setup.check_ledger().await, changes)
}

/// SIGSTOPs sent from outside at instants the holders do not choose: `pauses` times, a random
/// holder (the leader half the time) is stopped after a random wait, for a random while (below
/// the stall threshold, past it but within the TTL, or past the TTL), then resumed. A pause can
/// land anywhere: between two statements of an append, inside a renewal, with SQLite's write
/// lock held. Afterwards no stale write was accepted, no write was made past its term's
/// deadline, and the leadership changed hands at least once. Answers the ledger's report and
/// how many times the leadership changed hands.
pub async fn random_pauses_let_no_stale_or_late_write_land(
    setup: &Setup,
    pauses: usize,
) -> (LedgerReport, usize) {
    let seed = fastrand::u64(..);
    eprintln!("random pauses: seed {seed}");
    crate::history::seed(seed);
    let mut random = fastrand::Rng::with_seed(seed);
    let leases = baton::connect_leases(&setup.url).await.expect("connect");
    let lease: baton::LeaseName = setup.lease.parse().expect("a lease name");
    let mut holders = Vec::new();
    for writer in ["a", "b", "c"] {
        holders.push(setup.holder(writer).await);
    }
    // Whoever acquires first: on a slow store a later holder can win the first race.
    let [a, b, c] = holders.as_mut_slice() else { unreachable!("three holders") };
    tokio::select! {
        _ = a.expect("WROTE", PATIENCE) => {}
        _ = b.expect("WROTE", PATIENCE) => {}
        _ = c.expect("WROTE", PATIENCE) => {}
    }
    let (ttl, stall) = (setup.ttl, setup.ttl / 5);
    for _ in 0..pauses {
        tokio::time::sleep(Duration::from_millis(random.u64(0..400))).await;
        let leader = leases.get(&lease).await.ok().flatten().and_then(|lease| lease.holder);
        let leading = holders
            .iter()
            .position(|h| Some(h.writer.as_str()) == leader.as_ref().map(|l| l.as_str()));
        let target = match leading {
            Some(index) if random.bool() => index,
            _ => random.usize(..holders.len()),
        };
        let (shortest, longest) = match random.u8(..3) {
            0 => (Duration::from_millis(20), stall),
            1 => (stall + Duration::from_millis(100), ttl),
            _ => (ttl + Duration::from_millis(200), ttl + Duration::from_secs(1)),
        };
        let pause = shortest + (longest - shortest).mul_f64(random.f64());
        holders[target].stop_now(PATIENCE).await;
        tokio::time::sleep(pause).await;
        holders[target].resume();
    }
    let changes = leases
        .history(baton::HistoryParams::default())
        .await
        .expect("the leader history")
        .items
        .len();
    for holder in &mut holders {
        holder.kill9().await;
    }
    let report = setup.check_ledger().await;
    assert!(changes >= 2, "the pauses never moved the leadership (seed {seed}): {report:?}");
    (report, changes)
}

/// Holders whose wall clocks disagree with the host's (F6): a's `skew_seconds` ahead, b's as
/// far behind, c's on time. The leader is killed twice; each time another holder takes over
/// only once the lease could have expired on the store's clock (no sooner than two thirds of
/// the TTL after the kill), within TTL + retry, under a greater token; the ledger is clean. A
/// store judging expiry by a holder's wall clock would let b or c take over at once. Answers
/// the two takeover times.
pub async fn skewed_clocks_take_over_only_after_expiry(
    setup: &Setup,
    skew_seconds: i64,
) -> Vec<Duration> {
    let mut holders = vec![setup.holder_with_clock("a", FakeClock::skewed(skew_seconds)).await];
    let (mut term, _) = holders[0].expect("ACQUIRED", PATIENCE).await;
    holders[0].expect("WROTE", PATIENCE).await;
    holders.push(setup.holder_with_clock("b", FakeClock::skewed(-skew_seconds)).await);
    holders.push(setup.holder_with_clock("c", FakeClock::REAL).await);
    let (mut leader, mut takeovers) = (0, Vec::new());
    for _ in 0..2 {
        holders.remove(leader).kill9().await;
        let killed = Instant::now();
        let next;
        (leader, next) = first_to_acquire(&mut holders).await;
        let takeover = killed.elapsed();
        assert!(
            takeover >= setup.ttl * 2 / 3,
            "taken over {takeover:?} after the kill, before the lease could expire: {next:?}"
        );
        let bound = setup.takeover_bound();
        assert!(takeover <= bound, "taken over after {takeover:?}, more than {bound:?}");
        assert!(next.token() > term.token(), "tokens must rise: {term:?} then {next:?}");
        takeovers.push(takeover);
        term = next;
    }
    setup.check_ledger().await;
    takeovers
}

/// Which of one or two holders acquires first, and its event.
async fn first_to_acquire(holders: &mut [HolderProcess]) -> (usize, crate::holder::Event) {
    match holders {
        [only] => (0, only.expect("ACQUIRED", PATIENCE).await.0),
        [x, y] => tokio::select! {
            (event, _) = x.expect("ACQUIRED", PATIENCE) => (0, event),
            (event, _) = y.expect("ACQUIRED", PATIENCE) => (1, event),
        },
        _ => unreachable!("one or two holders"),
    }
}
