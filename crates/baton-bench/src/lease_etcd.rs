//! `baton bench lease` on an etcd URL: the floor is the same cycle as plain one-key
//! transactions (put if absent, put if unchanged, delete if unchanged), one request each, sent
//! by the etcd store's own client on connections of its own.
//!
//! The floor's transactions compare and write one key; baton's acquisition compares five keys
//! and writes three (record, holder, history) with a keep-alive of the holder's etcd lease
//! beside it, its renewal checks the holder key, records the renewal and keeps the etcd lease
//! alive, and its release writes two keys.

use std::time::{Duration, Instant};

use baton::etcd::EtcdLeaseStore;

use crate::LeaseBenchArgs;
use crate::lease_only::{self, Floor};
use crate::lease_report::HandoverGoal;
use crate::timed::{self, Measured, OpKind, Sample, Samples, Window};

/// The floor on etcd, and the handover goal there.
const FLOOR: Floor = Floor {
    store: "etcd",
    label: "floor: one-key txn ×3",
    explained: "The floor is the cycle as plain one-key transactions: put if absent, put if \
                unchanged, delete if unchanged, one request each; baton's is one transaction \
                each (with a keep-alive beside the acquisition and the renewal).",
    handover: HandoverGoal { p50: None, p99: Duration::from_millis(20) },
};

/// Runs the etcd lease scenarios against `args.backend` and prints each section.
pub(crate) async fn run(args: &LeaseBenchArgs) -> anyhow::Result<()> {
    lease_only::run(args, &FLOOR, floor_cycles).await
}

/// `clients` stores of their own, each cycling the floor's transactions on a key of its own.
async fn floor_cycles(
    url: &str,
    run: &str,
    clients: usize,
    length: Duration,
) -> anyhow::Result<Measured> {
    let mut stores = Vec::with_capacity(clients);
    for _ in 0..clients {
        stores.push(EtcdLeaseStore::connect(url).await?);
    }
    let window = Window::open(length);
    let workers = stores
        .into_iter()
        .enumerate()
        .map(|(i, store)| {
            let key = format!("baton-bench/{run}/floor{clients}-{i}");
            tokio::spawn(async move { floor_worker(store, key, window).await })
        })
        .collect();
    let parts = timed::join_all(workers).await?;
    Ok(Measured { samples: Samples::new(parts, length), ..Measured::default() })
}

async fn floor_worker(
    store: EtcdLeaseStore,
    key: String,
    window: Window,
) -> anyhow::Result<Vec<Sample>> {
    let mut samples = Vec::new();
    while window.is_open() {
        let began = Instant::now();
        let created = store.compare_and_set(&key, 0, Some(b"bench")).await?;
        let created = created.ok_or_else(|| anyhow::anyhow!("the floor's key {key} was taken"))?;
        samples.push(window.sample(OpKind::Acquire, began));
        let began = Instant::now();
        let renewed = store.compare_and_set(&key, created, Some(b"bench")).await?;
        let renewed = renewed.ok_or_else(|| anyhow::anyhow!("the floor's key {key} changed"))?;
        samples.push(window.sample(OpKind::Renew, began));
        let began = Instant::now();
        let deleted = store.compare_and_set(&key, renewed, None).await?;
        anyhow::ensure!(deleted.is_some(), "the floor's key {key} changed");
        samples.push(window.sample(OpKind::Release, began));
    }
    Ok(samples)
}
