//! `baton bench lease` on a Redis URL: baton's acquire → renew → release cycle against the
//! floor of the same cycle as a plain Redis lock sends it (`SET NX PX`, `PEXPIRE`, `DEL`, one
//! round trip each, from the same client library on connections of its own), then the graceful
//! handover and the crash failover.
//!
//! The floor's renewal and release check nothing (a real lock would compare the holder first),
//! so the floor is a little faster than any correct lock: the ratio errs against baton.

use std::time::{Duration, Instant};

use redis::aio::MultiplexedConnection;

use crate::LeaseBenchArgs;
use crate::client::connect_all;
use crate::lease::{CLIENTS, ROUNDS, emit, handover_and_crash, progress};
use crate::lease_ops;
use crate::lease_report::{HandoverGoal, latency_cells};
use crate::report::{self, Table, ratio, verdict};
use crate::timed::{self, Measured, OpKind, Sample, Samples, Window};

/// The lowest lease-to-floor throughput ratio the design accepts on Redis.
const MIN_RATIO: f64 = 0.8;
/// The handover goal on Redis: what the best Redis locks reach on loopback.
const HANDOVER: HandoverGoal =
    HandoverGoal { p50: Some(Duration::from_micros(700)), p99: Duration::from_millis(1) };
const LEASE_KINDS: [OpKind; 3] = [OpKind::Acquire, OpKind::Renew, OpKind::Release];
/// The floor's lock TTL, in milliseconds: the leases' own.
const FLOOR_TTL_MS: u64 = crate::client::TTL.as_millis() as u64;

/// Runs the Redis lease scenarios against `args.backend` and prints each section.
pub(crate) async fn run(args: &LeaseBenchArgs) -> anyhow::Result<()> {
    let url = args.backend.as_str();
    let run = format!("{:08x}", fastrand::u32(..));
    emit(&header(url, args, &run));
    let round = args.duration / ROUNDS;
    let mut pairs = Vec::new();
    for clients in [1, CLIENTS] {
        progress(&format!(
            "floor and lease cycles on {clients} connection(s): {ROUNDS} alternating rounds of \
             {round:?} each"
        ));
        let (mut floor, mut lease) = (Measured::default(), Measured::default());
        for _ in 0..ROUNDS {
            floor.absorb(floor_cycles(url, &run, clients, round).await?);
            lease.absorb(Measured {
                samples: lease_ops::cycle_samples(connect_all(url, clients).await?, &run, round)
                    .await?,
                ..Measured::default()
            });
        }
        pairs.push((clients, floor, lease));
    }
    emit(&throughput(&pairs));

    handover_and_crash(args, &run, "Redis", HANDOVER).await
}

fn header(url: &str, args: &LeaseBenchArgs, run: &str) -> String {
    format!(
        "baton bench lease on Redis ({}), run {run}\n\
         Each throughput figure is measured for {:?} in all; the floor and the lease cycles \
         alternate in {ROUNDS} rounds, on the same server.\n\
         The floor is the cycle a plain Redis lock sends: SET NX PX, PEXPIRE, DEL, one round \
         trip each; baton's is one script call (EVALSHA) each.\n\
         ops/s is the median of the rates over 10 equal slices of the measurement; latencies \
         are per operation (p50/p99).\n",
        baton::redact(url),
        args.duration,
    )
}

/// `clients` plain connections, each cycling the floor's commands on a key of its own.
async fn floor_cycles(
    url: &str,
    run: &str,
    clients: usize,
    length: Duration,
) -> anyhow::Result<Measured> {
    let client = redis::Client::open(url)?;
    let mut connections = Vec::with_capacity(clients);
    for _ in 0..clients {
        connections.push(client.get_multiplexed_async_connection().await?);
    }
    let window = Window::open(length);
    let workers = connections
        .into_iter()
        .enumerate()
        .map(|(i, connection)| {
            let key = format!("baton-bench:{run}:floor{clients}-{i}");
            tokio::spawn(async move { floor_worker(connection, key, window).await })
        })
        .collect();
    let parts = timed::join_all(workers).await?;
    Ok(Measured { samples: Samples::new(parts, length), ..Measured::default() })
}

async fn floor_worker(
    mut connection: MultiplexedConnection,
    key: String,
    window: Window,
) -> anyhow::Result<Vec<Sample>> {
    let mut samples = Vec::new();
    while window.is_open() {
        let began = Instant::now();
        let set: Option<String> = redis::cmd("SET")
            .arg(&key)
            .arg("bench")
            .arg("NX")
            .arg("PX")
            .arg(FLOOR_TTL_MS)
            .query_async(&mut connection)
            .await?;
        anyhow::ensure!(set.is_some(), "the floor's key {key} was taken");
        samples.push(window.sample(OpKind::Acquire, began));
        let began = Instant::now();
        let renewed: bool =
            redis::cmd("PEXPIRE").arg(&key).arg(FLOOR_TTL_MS).query_async(&mut connection).await?;
        anyhow::ensure!(renewed, "the floor's key {key} vanished");
        samples.push(window.sample(OpKind::Renew, began));
        let began = Instant::now();
        let deleted: u32 = redis::cmd("DEL").arg(&key).query_async(&mut connection).await?;
        anyhow::ensure!(deleted == 1, "the floor's key {key} vanished");
        samples.push(window.sample(OpKind::Release, began));
    }
    Ok(samples)
}

/// The floor and baton's cycles side by side, with each operation's latency.
fn throughput(pairs: &[(usize, Measured, Measured)]) -> String {
    let mut table = Table::new(&["run", "conns", "ops/s", "p50", "p99", "vs floor", "target"]);
    for (conns, floor, lease) in pairs {
        let floor_rate = floor.samples.rate(&LEASE_KINDS);
        let lease_rate = lease.samples.rate(&LEASE_KINDS);
        for (label, measured, rate, versus, goal) in [
            ("floor: SET NX PX / PEXPIRE / DEL", floor, floor_rate, String::new(), String::new()),
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
    format!("Throughput against the floor (Redis)\n{}", table.render())
}
