//! `baton bench lease` on a Redis URL: the floor is the cycle a plain Redis lock sends (`SET NX
//! PX`, `PEXPIRE`, `DEL`, one round trip each, from the same client library on connections of
//! its own).
//!
//! The floor's renewal and release check nothing (a real lock would compare the holder first),
//! so the floor is a little faster than any correct lock: the ratio errs against baton.

use std::time::{Duration, Instant};

use redis::aio::MultiplexedConnection;

use crate::LeaseBenchArgs;
use crate::lease_only::{self, Floor};
use crate::lease_report::HandoverGoal;
use crate::timed::{self, Measured, OpKind, Sample, Samples, Window};

/// The floor on Redis, and the handover goal: what the best Redis locks reach on loopback.
const FLOOR: Floor = Floor {
    store: "Redis",
    label: "floor: SET NX PX / PEXPIRE / DEL",
    explained: "The floor is the cycle a plain Redis lock sends: SET NX PX, PEXPIRE, DEL, one \
                round trip each; baton's is one script call (EVALSHA) each.",
    handover: HandoverGoal { p50: Some(Duration::from_micros(700)), p99: Duration::from_millis(1) },
};
/// The floor's lock TTL, in milliseconds: the leases' own.
const FLOOR_TTL_MS: u64 = crate::client::TTL.as_millis() as u64;

/// Runs the Redis lease scenarios against `args.backend` and prints each section.
pub(crate) async fn run(args: &LeaseBenchArgs) -> anyhow::Result<()> {
    lease_only::run(args, &FLOOR, floor_cycles).await
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
