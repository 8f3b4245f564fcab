//! The sections of the `baton bench lease` report on a lease-only store, as text.

use crate::LeaseBenchArgs;
use crate::lease::ROUNDS;
use crate::lease_floor::LeaseFloor;
use crate::lease_report::latency_cells;
use crate::report::{self, Table, ratio, verdict};
use crate::timed::{Measured, OpKind};

/// The lowest lease-to-floor throughput ratio the design accepts on a lease-only store.
const MIN_RATIO: f64 = 0.8;
const LEASE_KINDS: [OpKind; 3] = [OpKind::Acquire, OpKind::Renew, OpKind::Release];

/// The floor's and baton's cycles on one number of connections.
#[derive(Debug)]
pub(crate) struct Pair {
    /// Connections (and clients) of both runs.
    pub(crate) clients: usize,
    /// The floor's cycles.
    pub(crate) floor: Measured,
    /// baton's cycles through the `LeaseStore`.
    pub(crate) lease: Measured,
}

/// What was run, where, and how to read the figures.
pub(crate) fn header(
    floor: &dyn LeaseFloor,
    url: &str,
    args: &LeaseBenchArgs,
    run: &str,
) -> String {
    format!(
        "baton bench lease on {} ({}), run {run}\n\
         Each throughput figure is measured for {:?} in all; the floor and the lease cycles \
         alternate in {ROUNDS} rounds, on the same server.\n\
         {}\n\
         ops/s is the median of the rates over 10 equal slices of the measurement; latencies \
         are per operation (p50/p99).\n",
        floor.about().store,
        baton::redact(url),
        args.duration,
        floor.about().description,
    )
}

/// The floor and baton's cycles side by side, with each operation's latency.
pub(crate) fn throughput(floor: &dyn LeaseFloor, pairs: &[Pair]) -> String {
    let mut table = Table::new(&["run", "conns", "ops/s", "p50", "p99", "vs floor", "target"]);
    let floor_label = format!("floor: {}", floor.about().operations);
    for pair in pairs {
        let floor_rate = pair.floor.samples.rate(&LEASE_KINDS);
        let lease_rate = pair.lease.samples.rate(&LEASE_KINDS);
        let lease_ratio = lease_rate / floor_rate;
        for (label, measured, rate, versus, goal) in [
            (floor_label.as_str(), &pair.floor, floor_rate, String::new(), String::new()),
            (
                "lease: acquire/renew/release",
                &pair.lease,
                lease_rate,
                ratio(lease_ratio),
                format!("≥ {MIN_RATIO:.2} {}", verdict(lease_ratio >= MIN_RATIO)),
            ),
        ] {
            let [p50, p99] = latency_cells(measured.samples.latency(&LEASE_KINDS));
            let conns = pair.clients.to_string();
            table.row(vec![label.into(), conns, report::rate(rate), p50, p99, versus, goal]);
            for kind in LEASE_KINDS {
                let [p50, p99] = latency_cells(measured.samples.latency(&[kind]));
                let rate = report::rate(measured.samples.rate(&[kind]));
                table.row(vec![format!("  {}", kind.label()), String::new(), rate, p50, p99]);
            }
        }
    }
    format!("Throughput against the floor ({})\n{}", floor.about().store, table.render())
}
