//! The faults, each with the workload it strikes and the scenario that checks it (in
//! [`crate::faults`], [`crate::scheduler_faults`] and [`crate::cluster_faults`]), and which
//! stores each can happen to.

use std::time::Duration;

use crate::fake_clock::FakeClock;
use crate::faults::Setup;
use crate::proxy::{Direction, FaultProxy, Mode};
use crate::{
    cluster_admin, cluster_faults, faults, leader_faults, scheduler_admin, scheduler_faults,
};

use super::{Members, Store, StoreUnderTest};

/// How much longer than the TTL [`Fault::Stall`] freezes the store.
const STALL_PAST_THE_TTL: Duration = Duration::from_secs(1);

/// How many pauses [`Fault::RandomPauses`] sends.
const RANDOM_PAUSES: usize = 12;

/// How far apart [`Fault::SkewedClocks`] sets the holders' wall clocks: ten minutes each way,
/// far past any TTL and within the fifteen minutes by which AWS and Azure accept a signed
/// request's date.
const SKEW_SECONDS: i64 = 600;

/// How fast the holders' clocks run under [`Fault::SlowClocks`]: a holder steps down seven
/// tenths of the TTL after its last renewal on its own clock, so it stays inside its term as
/// long as its clock runs faster than 0.7 of the store's.
const SLOW_CLOCK_RATE: f64 = 0.8;

/// What the processes under a fault are doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Workload {
    /// W1: three holders campaign for one lease and the leader writes to a fenced ledger.
    Leases,
    /// W2: three scheduler nodes run a job every second and a slow retried job, each handler
    /// writing through the fence.
    Scheduler,
    /// W3: three cluster nodes run a partitioned batch, committing items through the fence and
    /// checkpointing.
    Partitions,
    /// W4: an operator's calls while W1, W2 or W3 runs.
    Admin,
}

impl Workload {
    /// Every workload, in the tables' order.
    pub const ALL: [Workload; 4] =
        [Workload::Leases, Workload::Scheduler, Workload::Partitions, Workload::Admin];

    /// Its heading in the tables.
    pub fn title(self) -> &'static str {
        match self {
            Workload::Leases => "W1: a leader writing to a fenced ledger",
            Workload::Scheduler => "W2: the scheduler",
            Workload::Partitions => "W3: a partitioned batch",
            Workload::Admin => "W4: admin calls during the other workloads",
        }
    }
}

/// A fault, and the workload it strikes.
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
    /// F5: the store's own leader member killed while a lease is held, in a replicated
    /// deployment of it ([`Members`]): writes resume within the TTL, the retry period and the
    /// store's failover, and then a holder's kill is taken over on the surviving members.
    MemberFailure,
    /// F7: the store slow for the leader, every chunk each way held a quarter of the TTL,
    /// for twice the TTL.
    Slow,
    /// F6: the holders' wall clocks ten minutes ahead, ten minutes behind and on time; the
    /// leader is killed twice: each takeover waits for the lease to expire on the store's
    /// clock, whatever the holders' clocks say.
    SkewedClocks,
    /// F6: the holders' clocks run at 0.8 of the host's, and the leader is cut from the
    /// store: it still steps down before anyone else is granted the lease.
    SlowClocks,
    /// F1 on W2: `kill -9` of the scheduler leader; another node takes over and the fires
    /// resume, each once.
    SchedulerKill9,
    /// F2 on W2: SIGSTOP of the scheduler leader past its TTL inside a handler; another node
    /// takes over, and the paused attempts' late writes are refused.
    SchedulerPause,
    /// F8 on W2: a rolling restart of the scheduler nodes; each leader change is a handover,
    /// and every fire runs once.
    SchedulerChurn,
    /// F1 on W3: `kill -9` of a worker holding partitions; they resume elsewhere from their
    /// checkpoints, no item committed twice.
    PartitionsKill9,
    /// F2 on W3: SIGSTOP of a worker inside an item's commit, past the unreachable threshold;
    /// its late commit is refused and it registers again.
    PartitionsPause,
    /// F3 on W3: a blackhole between a worker and the store; its partitions resume elsewhere
    /// and it registers again once the cut heals.
    PartitionsCut,
    /// F8 on W3: a worker joins and another leaves gracefully mid-batch; no partition moves,
    /// and no node is taken for dead.
    PartitionsChurn,
    /// W4 on W1: the lease force-released while its holder writes; the holder learns of it
    /// at its next renewal, and the fence judges its last writes.
    LeaseAdmin,
    /// W4 on W2: a job paused and resumed, a run-now, the scheduler lease force-released and
    /// the leader asked to step down, while the scheduler runs.
    SchedulerAdmin,
    /// W4 on W3: the cluster lease force-released and the leader asked to step down during a
    /// batch; no partition moves.
    BatchAdmin,
}

impl Fault {
    /// Every fault, in the tables' order.
    pub const ALL: [Fault; 21] = [
        Fault::Kill9,
        Fault::PausePastTtl,
        Fault::RandomPauses,
        Fault::Cut,
        Fault::AnswersLost,
        Fault::Restart,
        Fault::Stall,
        Fault::MemberFailure,
        Fault::Slow,
        Fault::SkewedClocks,
        Fault::SlowClocks,
        Fault::SchedulerKill9,
        Fault::SchedulerPause,
        Fault::SchedulerChurn,
        Fault::PartitionsKill9,
        Fault::PartitionsPause,
        Fault::PartitionsCut,
        Fault::PartitionsChurn,
        Fault::LeaseAdmin,
        Fault::SchedulerAdmin,
        Fault::BatchAdmin,
    ];

    /// The workload it strikes.
    pub fn workload(self) -> Workload {
        match self {
            Fault::SchedulerKill9 | Fault::SchedulerPause | Fault::SchedulerChurn => {
                Workload::Scheduler
            }
            Fault::PartitionsKill9
            | Fault::PartitionsPause
            | Fault::PartitionsCut
            | Fault::PartitionsChurn => Workload::Partitions,
            Fault::LeaseAdmin | Fault::SchedulerAdmin | Fault::BatchAdmin => Workload::Admin,
            _ => Workload::Leases,
        }
    }

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
            Fault::MemberFailure => "member-failure",
            Fault::Slow => "slow",
            Fault::SkewedClocks => "skewed-clocks",
            Fault::SlowClocks => "slow-clocks",
            Fault::SchedulerKill9 => "scheduler-kill9",
            Fault::SchedulerPause => "scheduler-pause",
            Fault::SchedulerChurn => "rolling-restart",
            Fault::PartitionsKill9 => "batch-kill9",
            Fault::PartitionsPause => "batch-pause",
            Fault::PartitionsCut => "batch-cut",
            Fault::PartitionsChurn => "batch-churn",
            Fault::LeaseAdmin => "lease-admin",
            Fault::SchedulerAdmin => "scheduler-admin",
            Fault::BatchAdmin => "batch-admin",
        }
    }

    /// Every fault's name, for a usage line.
    pub fn names() -> String {
        Fault::ALL.map(Fault::name).join(", ")
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
            (Fault::SkewedClocks, Store::Sqlite) => {
                Err("an embedded file: its clock is the host's, which every holder shares")
            }
            (Fault::Stall, store) if store.in_process() => {
                Err("an emulation inside the test process: a store that stops answering is F3")
            }
            (Fault::MemberFailure, store) if store.in_process() => {
                Err("an emulation inside the test process: no members of its own")
            }
            (Fault::MemberFailure, Store::Postgres | Store::Mariadb) => {
                Err("a single primary here: a failover to an asynchronous replica can lose \
                     committed tokens, which no lease survives")
            }
            (Fault::MemberFailure, Store::AzureBlob | Store::DynamoDb) => {
                Err("an emulation of a managed service, whose replication is the provider's")
            }
            (Fault::PartitionsCut, store) if !store.holds_state() => {
                Err("the partitions are in the SQLite file beside it: no network to cut")
            }
            _ => Ok(()),
        }
    }

    /// Whether the fault needs a server between the nodes and the data.
    fn needs_a_server(self) -> bool {
        matches!(
            self,
            Fault::Cut
                | Fault::AnswersLost
                | Fault::Restart
                | Fault::Stall
                | Fault::MemberFailure
                | Fault::Slow
                | Fault::SlowClocks
                | Fault::PartitionsCut
        )
    }

    /// Inflicts the fault on `store` and checks the ledger; answers what it measured. Panics
    /// when a check fails.
    pub async fn inflict(self, store: &StoreUnderTest) -> String {
        let setup = &store.setup;
        match self {
            Fault::SkewedClocks => {
                let takeovers =
                    faults::skewed_clocks_take_over_only_after_expiry(setup, SKEW_SECONDS).await;
                let shown: Vec<String> =
                    takeovers.iter().map(|t| format!("{:.2} s", t.as_secs_f64())).collect();
                format!("taken over after {}", shown.join(" and "))
            }
            Fault::SlowClocks => {
                let (proxy, proxied) = proxied(store).await;
                let slow = faults::Setup {
                    clock: FakeClock::running_at(SLOW_CLOCK_RATE),
                    ..setup.clone()
                };
                faults::cut_holder_steps_down_and_is_fenced_by(
                    &slow,
                    &proxy,
                    &proxied,
                    Mode::Blackhole,
                )
                .await;
                format!("clocks at {SLOW_CLOCK_RATE}: stepped down before the takeover")
            }
            Fault::SchedulerKill9 => {
                let measured = scheduler_faults::killed_leader_is_replaced_and_fires_resume(
                    &store.scheduler(),
                )
                .await;
                measured.to_string()
            }
            Fault::SchedulerPause => {
                let measured =
                    scheduler_faults::paused_leader_is_replaced_and_its_late_write_fenced(
                        &store.scheduler(),
                    )
                    .await;
                measured.to_string()
            }
            Fault::SchedulerChurn => {
                let measured = scheduler_faults::rolling_restart_hands_over_and_keeps_every_fire(
                    &store.scheduler(),
                )
                .await;
                measured.to_string()
            }
            Fault::LeaseAdmin => {
                let (takeover, went_on) = faults::forced_release_is_fenced(setup).await;
                format!(
                    "taken over after {} ms (store clock); the holder led {} ms longer",
                    takeover.as_millis(),
                    went_on.as_millis()
                )
            }
            Fault::SchedulerAdmin => {
                let measured =
                    scheduler_admin::admin_calls_keep_every_fire_once(&store.scheduler()).await;
                measured.to_string()
            }
            Fault::BatchAdmin => {
                let handovers =
                    cluster_admin::leader_changes_move_no_partition(&store.partitions()).await;
                format!(
                    "new term {} ms after the forced release, {} ms after the step-down (store \
                     clock); no partition moved",
                    handovers.forced_release.as_millis(),
                    handovers.step_down.as_millis()
                )
            }
            Fault::PartitionsKill9 => {
                let measured =
                    cluster_faults::killed_worker_partitions_resume_elsewhere(&store.partitions())
                        .await;
                measured.to_string()
            }
            Fault::PartitionsChurn => {
                let leaving = cluster_faults::joining_and_leaving_workers_move_no_partition(
                    &store.partitions(),
                )
                .await;
                format!(
                    "a worker joined, another left {} ms after it was asked, its partitions \
                     done; no partition moved",
                    leaving.as_millis()
                )
            }
            Fault::PartitionsPause => {
                let measured = cluster_faults::paused_worker_is_fenced_and_registers_again(
                    &store.partitions(),
                )
                .await;
                measured.to_string()
            }
            Fault::PartitionsCut => {
                let (proxy, proxied) = proxied(store).await;
                let measured = cluster_faults::cut_worker_partitions_resume_and_it_registers_again(
                    &store.partitions(),
                    &proxy,
                    &proxied,
                )
                .await;
                measured.to_string()
            }
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
            Fault::MemberFailure => {
                let members = Members::start(store.store).expect("a replicated deployment");
                let replicated = Setup { url: members.url(), ..setup.clone() };
                let fault = leader_faults::leader_killed_while_a_lease_is_held(&replicated, || {
                    members.kill_leader()
                })
                .await;
                format!(
                    "new store leader after {} ms, writes resumed {} ms after the kill",
                    fault.election.as_millis(),
                    fault.restored.as_millis()
                )
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
