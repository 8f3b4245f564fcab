//! `baton bench lease` on a lease-only store (Redis, etcd): baton's acquire → renew → release
//! cycle against the floor of the same cycle as a plain lock on that store sends it, from the
//! same client, then the graceful handover and the crash failover.

use std::time::Duration;

use crate::LeaseBenchArgs;
use crate::client::connect_all;
use crate::lease::{CLIENTS, ROUNDS, emit, handover_and_crash, progress};
use crate::lease_ops;
use crate::lease_report::{HandoverGoal, latency_cells};
use crate::report::{self, Table, ratio, verdict};
use crate::timed::{Measured, OpKind};

/// The lowest lease-to-floor throughput ratio the design accepts on a lease-only store.
const MIN_RATIO: f64 = 0.8;
const LEASE_KINDS: [OpKind; 3] = [OpKind::Acquire, OpKind::Renew, OpKind::Release];

/// What the floor is on one store, and the handover goal there.
pub(crate) struct Floor {
    /// The store, as the report names it.
    pub(crate) store: &'static str,
    /// The floor's row in the throughput table.
    pub(crate) label: &'static str,
    /// The header's sentence saying what the floor sends and what baton sends.
    pub(crate) explained: &'static str,
    /// The handover goal on this store.
    pub(crate) handover: HandoverGoal,
}

/// Runs the lease scenarios against `args.backend`, the floor's cycles measured by
/// `floor_cycles(url, run, clients, length)`, and prints each section.
pub(crate) async fn run(
    args: &LeaseBenchArgs,
    floor: &Floor,
    floor_cycles: impl AsyncFn(&str, &str, usize, Duration) -> anyhow::Result<Measured>,
) -> anyhow::Result<()> {
    let url = args.backend.as_str();
    let run = format!("{:08x}", fastrand::u32(..));
    emit(&header(url, args, &run, floor));
    let round = args.duration / ROUNDS;
    let mut pairs = Vec::new();
    for clients in [1, CLIENTS] {
        progress(&format!(
            "floor and lease cycles on {clients} connection(s): {ROUNDS} alternating rounds of \
             {round:?} each"
        ));
        let (mut floor_measured, mut lease) = (Measured::default(), Measured::default());
        for _ in 0..ROUNDS {
            floor_measured.absorb(floor_cycles(url, &run, clients, round).await?);
            lease.absorb(Measured {
                samples: lease_ops::cycle_samples(connect_all(url, clients).await?, &run, round)
                    .await?,
                ..Measured::default()
            });
        }
        pairs.push((clients, floor_measured, lease));
    }
    emit(&throughput(&pairs, floor));

    handover_and_crash(args, &run, floor.store, floor.handover).await
}

fn header(url: &str, args: &LeaseBenchArgs, run: &str, floor: &Floor) -> String {
    format!(
        "baton bench lease on {} ({}), run {run}\n\
         Each throughput figure is measured for {:?} in all; the floor and the lease cycles \
         alternate in {ROUNDS} rounds, on the same server.\n\
         {}\n\
         ops/s is the median of the rates over 10 equal slices of the measurement; latencies \
         are per operation (p50/p99).\n",
        floor.store,
        baton::redact(url),
        args.duration,
        floor.explained,
    )
}

/// The floor and baton's cycles side by side, with each operation's latency.
fn throughput(pairs: &[(usize, Measured, Measured)], floor: &Floor) -> String {
    let mut table = Table::new(&["run", "conns", "ops/s", "p50", "p99", "vs floor", "target"]);
    for (conns, floor_measured, lease) in pairs {
        let floor_rate = floor_measured.samples.rate(&LEASE_KINDS);
        let lease_rate = lease.samples.rate(&LEASE_KINDS);
        for (label, measured, rate, versus, goal) in [
            (floor.label, floor_measured, floor_rate, String::new(), String::new()),
            (
                "lease: acquire/renew/release",
                lease,
                lease_rate,
                ratio(lease_rate / floor_rate),
                format!("≥ {MIN_RATIO:.2} {}", verdict(lease_rate / floor_rate >= MIN_RATIO)),
            ),
        ] {
            let [p50, p99] = latency_cells(measured.samples.latency(&LEASE_KINDS));
            table.row(vec![
                label.into(),
                conns.to_string(),
                report::rate(rate),
                p50,
                p99,
                versus,
                goal,
            ]);
            for kind in LEASE_KINDS {
                let [p50, p99] = latency_cells(measured.samples.latency(&[kind]));
                let rate = report::rate(measured.samples.rate(&[kind]));
                table.row(vec![format!("  {}", kind.label()), String::new(), rate, p50, p99]);
            }
        }
    }
    format!("Throughput against the floor ({})\n{}", floor.store, table.render())
}
