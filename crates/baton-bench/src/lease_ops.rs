//! Timed lease operations on the `LeaseStore`: acquire → renew → release cycles, and contenders
//! racing on one name. Every client opens its own backend with `baton::connect`.

use std::time::{Duration, Instant};

use baton::core::AcquireOutcome;
use baton::{ErrorKind, LeaseName};

use crate::client::{Client, connect_all};
use crate::commits::CommitCounter;
use crate::statements;
use crate::timed::{self, Measured, OpKind, Sample, Samples, Window};

/// `clients` clients, each cycling acquire → renew → release on a lease of its own.
pub(crate) async fn cycles(
    url: &str,
    run: &str,
    clients: usize,
    length: Duration,
    commits: &mut CommitCounter,
) -> anyhow::Result<Measured> {
    let mark = commits.mark().await?;
    let connected = connect_all(url, clients).await?;
    let statements_before = statements::count();
    let samples = cycle_samples(connected, run, length).await?;
    let statements = statements::count() - statements_before;
    let commits = commits.since(&mark).await?;
    Ok(Measured { samples, statements, commits })
}

/// Each of `connected` cycling on a lease of its own for `length`.
pub(crate) async fn cycle_samples(
    connected: Vec<Client>,
    run: &str,
    length: Duration,
) -> anyhow::Result<Samples> {
    let clients = connected.len();
    let window = Window::open(length);
    let workers = connected
        .into_iter()
        .enumerate()
        .map(|(i, client)| {
            let name = LeaseName::new(format!("bench-{run}-cycle{clients}-{i}"));
            tokio::spawn(async move { cycle_worker(client, name?, window).await })
        })
        .collect();
    Ok(Samples::new(timed::join_all(workers).await?, length))
}

/// Cycles acquire → renew → release on `name` until the window closes.
async fn cycle_worker(
    client: Client,
    name: LeaseName,
    window: Window,
) -> anyhow::Result<Vec<Sample>> {
    let mut samples = Vec::new();
    while window.is_open() {
        let began = Instant::now();
        let token = client.acquire_free(&name).await?;
        samples.push(window.sample(OpKind::Acquire, began));
        let began = Instant::now();
        client.renew(&name, token).await?;
        samples.push(window.sample(OpKind::Renew, began));
        let began = Instant::now();
        client.release(&name, token).await?;
        samples.push(window.sample(OpKind::Release, began));
    }
    Ok(samples)
}

/// The outcome of contenders racing on one lease.
#[derive(Debug, Clone, Default)]
pub(crate) struct Race {
    /// Attempts (as [`OpKind::Acquire`]) and the releases of granted attempts.
    pub(crate) measured: Measured,
    /// Attempts that were granted.
    pub(crate) grants: u64,
    /// Attempts the store answered with a conflict (the lease changed hands meanwhile).
    pub(crate) conflicts: u64,
}

/// `contenders` clients racing on one lease: acquire, and release at once if granted.
pub(crate) async fn race(
    url: &str,
    run: &str,
    contenders: usize,
    length: Duration,
    commits: &mut CommitCounter,
) -> anyhow::Result<Race> {
    let name = LeaseName::new(format!("bench-{run}-race"))?;
    let mark = commits.mark().await?;
    let connected = connect_all(url, contenders).await?;
    let statements_before = statements::count();
    let window = Window::open(length);
    let workers = connected
        .into_iter()
        .map(|client| tokio::spawn(race_worker(client, name.clone(), window)))
        .collect();
    let finished = timed::join_all(workers).await?;
    let statements = statements::count() - statements_before;
    let commits = commits.since(&mark).await?;
    let grants = finished.iter().map(|(_, grants, _)| grants).sum();
    let conflicts = finished.iter().map(|(_, _, conflicts)| conflicts).sum();
    let parts = finished.into_iter().map(|(samples, _, _)| samples).collect();
    let measured = Measured { samples: Samples::new(parts, length), statements, commits };
    Ok(Race { measured, grants, conflicts })
}

async fn race_worker(
    client: Client,
    name: LeaseName,
    window: Window,
) -> anyhow::Result<(Vec<Sample>, u64, u64)> {
    let (mut samples, mut grants, mut conflicts) = (Vec::new(), 0, 0);
    while window.is_open() {
        let began = Instant::now();
        let outcome = client.acquire(&name).await;
        samples.push(window.sample(OpKind::Acquire, began));
        match outcome {
            Ok(AcquireOutcome::Acquired { lease, .. }) => {
                grants += 1;
                let began = Instant::now();
                client.release(&name, lease.token).await?;
                samples.push(window.sample(OpKind::Release, began));
            }
            Ok(_) => {}
            Err(err) if err.kind() == ErrorKind::Conflict => conflicts += 1,
            Err(err) => return Err(err.into()),
        }
    }
    Ok((samples, grants, conflicts))
}
