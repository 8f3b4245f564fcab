//! The faults of the lease workload, each run by the fault scenario in [`crate::faults`] that
//! checks it, and which stores each can happen to.

use std::time::Duration;

use crate::faults;
use crate::proxy::{Direction, FaultProxy, Mode};

use super::{Store, StoreUnderTest};

/// How much longer than the TTL [`Fault::Stall`] freezes the store.
const STALL_PAST_THE_TTL: Duration = Duration::from_secs(1);

/// How many pauses [`Fault::RandomPauses`] sends.
const RANDOM_PAUSES: usize = 12;

/// A fault of the lease workload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// F1: `kill -9` of the holder; another takes over within the TTL and the retry period.
    Kill9,
    /// F2: SIGSTOP of the holder past its TTL, then SIGCONT: it notices its loss before any
    /// write, and its deliberate stale write is refused.
    PausePastTtl,
    /// F2: SIGSTOPs of random holders at random instants, for random lengths.
    RandomPauses,
    /// F3: a blackhole between the holder and the store, through the fault proxy.
    Cut,
    /// F10: the holder's requests reach the store and its answers are lost, through the fault
    /// proxy: every write's outcome is unknown to the holder.
    AnswersLost,
    /// F4: the store killed while holders run, and started again.
    Restart,
    /// F7: the store answers nothing for a second longer than the TTL, then everything queued.
    Stall,
    /// F7: the store slow for the leader, every chunk each way held a quarter of the TTL,
    /// for twice the TTL.
    Slow,
}

impl Fault {
    /// Every fault, in the table's order.
    pub const ALL: [Fault; 8] = [
        Fault::Kill9,
        Fault::PausePastTtl,
        Fault::RandomPauses,
        Fault::Cut,
        Fault::AnswersLost,
        Fault::Restart,
        Fault::Stall,
        Fault::Slow,
    ];

    /// The name used on the command line and in the table.
    pub fn name(self) -> &'static str {
        match self {
            Fault::Kill9 => "kill9",
            Fault::PausePastTtl => "pause",
            Fault::RandomPauses => "random-pauses",
            Fault::Cut => "cut",
            Fault::AnswersLost => "answers-lost",
            Fault::Restart => "restart",
            Fault::Stall => "stall",
            Fault::Slow => "slow",
        }
    }

    /// The fault named `name`.
    pub fn parse(name: &str) -> Option<Fault> {
        Fault::ALL.into_iter().find(|fault| fault.name() == name)
    }

    /// Whether the fault can happen to `store`; if not, why.
    pub fn applies_to(self, store: Store) -> Result<(), &'static str> {
        match (self, store) {
            (_, Store::Sqlite) if self.needs_a_server() => {
                Err("an embedded file: no server, no network")
            }
            (Fault::Stall, store) if store.in_process() => {
                Err("an emulation inside the test process: a store that stops answering is F3")
            }
            _ => Ok(()),
        }
    }

    /// Whether the fault needs a server between the holders and the data.
    fn needs_a_server(self) -> bool {
        !matches!(self, Fault::Kill9 | Fault::PausePastTtl | Fault::RandomPauses)
    }

    /// Inflicts the fault on `store` and checks the ledger; answers what it measured. Panics
    /// when a check fails.
    pub async fn inflict(self, store: &StoreUnderTest) -> String {
        let setup = &store.setup;
        match self {
            Fault::Kill9 => {
                let failover = faults::killed_holder_is_replaced_within_ttl_and_retry(setup).await;
                format!("taken over after {:.2} s", failover.as_secs_f64())
            }
            Fault::PausePastTtl => {
                faults::paused_holder_notices_its_loss_and_is_fenced(setup).await;
                "stale write refused".to_string()
            }
            Fault::RandomPauses => {
                let (report, changes) =
                    faults::random_pauses_let_no_stale_or_late_write_land(setup, RANDOM_PAUSES)
                        .await;
                format!(
                    "{RANDOM_PAUSES} pauses, {changes} leader changes, {} stale writes refused",
                    report.rejected
                )
            }
            Fault::Cut | Fault::AnswersLost => {
                let (proxy, proxied) = proxied(store).await;
                let cut = match self {
                    Fault::Cut => Mode::Blackhole,
                    _ => Mode::OneWay(Direction::ToUpstream),
                };
                faults::cut_holder_steps_down_and_is_fenced_by(setup, &proxy, &proxied, cut).await;
                match self {
                    Fault::Cut => "stepped down before the takeover".to_string(),
                    _ => "stepped down by its deadline, no late write".to_string(),
                }
            }
            Fault::Slow => {
                let (proxy, proxied) = proxied(store).await;
                let delay = setup.ttl / 4;
                let (report, grants) =
                    faults::slow_store_lets_no_late_write_land(setup, &proxy, &proxied, delay)
                        .await;
                format!("{grants} grants, {} stale writes refused", report.rejected)
            }
            Fault::Restart => {
                faults::store_restart_never_reissues_a_token(
                    setup,
                    || store.crash(),
                    || store.restart(),
                )
                .await;
                "no token reissued".to_string()
            }
            Fault::Stall => {
                let mut thaw = None;
                faults::stalled_store_lets_no_stale_write_land(setup, || {
                    thaw = Some(store.stall(setup.ttl + STALL_PAST_THE_TTL));
                })
                .await;
                thaw.expect("the stall").join().expect("the thaw");
                "stepped down within the stall".to_string()
            }
        }
    }
}

/// A fault proxy in front of `store`, and the store's URL through it.
async fn proxied(store: &StoreUnderTest) -> (FaultProxy, String) {
    let port = store.port().expect("a store with a server");
    let proxy = FaultProxy::start(([127, 0, 0, 1], port).into())
        .await
        .unwrap_or_else(|err| panic!("cannot start the fault proxy: {err}"));
    let proxied = store.url_through(proxy.addr().port());
    (proxy, proxied)
}
