//! Lease operations on the `LeaseStore`: acquire → renew → release cycles, contenders racing on
//! one name, and an accounting pass that counts statements and commits per kind of operation.
//!
//! Every client opens its own backend with `baton::connect`, so it has its own connection pool
//! as a separate process would.

use std::sync::Arc;
use std::time::{Duration, Instant};

use baton::core::{AcquireOutcome, AcquireParams, ReleaseParams, RenewParams};
use baton::{ErrorKind, FencingToken, HolderId, LeaseName, LeaseStore};

use crate::commits::CommitCounter;
use crate::statements;
use crate::timed::{self, Measured, OpKind, Sample, Samples, Window};

/// The TTL of the leases these runs take: the default of the design.
const TTL: Duration = Duration::from_secs(10);

/// One client: its own backend, pool and holder id.
struct Client {
    store: Arc<dyn LeaseStore>,
    holder: HolderId,
    _backend: baton::Backend,
}

impl Client {
    async fn connect(url: &str) -> anyhow::Result<Self> {
        let backend = baton::connect(url).await?;
        let holder = HolderId::generate("bench", fastrand::u32(..));
        Ok(Client { store: backend.leases(), holder, _backend: backend })
    }

    async fn acquire(&self, name: &LeaseName) -> baton::Result<AcquireOutcome> {
        let params = AcquireParams { name: name.clone(), holder: self.holder.clone(), ttl: TTL };
        self.store.acquire(params).await
    }

    /// Acquires a lease that must be free, and returns its token.
    async fn acquire_free(&self, name: &LeaseName) -> anyhow::Result<FencingToken> {
        match self.acquire(name).await? {
            AcquireOutcome::Acquired { lease, .. } => Ok(lease.token),
            AcquireOutcome::Held(lease) => anyhow::bail!(
                "lease {name} was expected free but is held by {}",
                lease.holder.map(|h| h.to_string()).unwrap_or_default()
            ),
            _ => anyhow::bail!("unexpected outcome acquiring {name}"),
        }
    }

    async fn renew(&self, name: &LeaseName, token: FencingToken) -> anyhow::Result<()> {
        let params = RenewParams { name: name.clone(), holder: self.holder.clone(), token };
        self.store.renew(params).await?;
        Ok(())
    }

    async fn release(&self, name: &LeaseName, token: FencingToken) -> anyhow::Result<()> {
        let params = ReleaseParams { name: name.clone(), holder: self.holder.clone(), token };
        anyhow::ensure!(self.store.release(params).await?, "lease {name} was no longer held at release");
        Ok(())
    }
}

async fn connect_all(url: &str, count: usize) -> anyhow::Result<Vec<Client>> {
    let mut clients = Vec::with_capacity(count);
    for _ in 0..count {
        clients.push(Client::connect(url).await?);
    }
    Ok(clients)
}

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
    let window = Window::open(length);
    let workers = connected
        .into_iter()
        .enumerate()
        .map(|(i, client)| {
            let name = LeaseName::new(format!("bench-{run}-cycle{clients}-{i}"));
            tokio::spawn(async move { cycle_worker(client, name?, window).await })
        })
        .collect();
    let parts = timed::join_all(workers).await?;
    let statements = statements::count() - statements_before;
    let commits = commits.since(&mark).await?;
    Ok(Measured { samples: Samples::new(parts, length), statements, commits })
}

async fn cycle_worker(client: Client, name: LeaseName, window: Window) -> anyhow::Result<Vec<Sample>> {
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

/// Statements and commits counted for `ops` operations of one kind.
#[derive(Debug, Clone)]
pub(crate) struct Accounted {
    /// What was done.
    pub(crate) what: &'static str,
    /// How many times.
    pub(crate) ops: u64,
    /// Statements counted.
    pub(crate) statements: u64,
    /// Commits the store counted.
    pub(crate) commits: u64,
}

/// Runs `ops` operations of each kind, one at a time, each kind on a fresh client and with
/// its own reading of the commit counter.
pub(crate) async fn accounting(
    url: &str,
    run: &str,
    ops: usize,
    commits: &mut CommitCounter,
) -> anyhow::Result<Vec<Accounted>> {
    let names = (0..ops)
        .map(|i| LeaseName::new(format!("bench-{run}-each-{i}")))
        .collect::<baton::Result<Vec<_>>>()?;
    let holder = HolderId::generate("bench", fastrand::u32(..));
    let mut tokens = Vec::with_capacity(ops);
    let mut rows = Vec::new();

    rows.push(account("acquire (free)", ops, commits, url, async |client| {
        for name in &names {
            tokens.push(client.acquire_free(name).await?);
        }
        Ok(())
    }, Some(&holder)).await?);
    rows.push(account("acquire (refused: held)", ops, commits, url, async |client| {
        for name in &names {
            let outcome = client.acquire(name).await?;
            anyhow::ensure!(matches!(outcome, AcquireOutcome::Held(_)), "lease {name} was granted twice");
        }
        Ok(())
    }, None).await?);
    rows.push(account("renew", ops, commits, url, async |client| {
        for (name, token) in names.iter().zip(&tokens) {
            client.renew(name, *token).await?;
        }
        Ok(())
    }, Some(&holder)).await?);
    rows.push(account("release", ops, commits, url, async |client| {
        for (name, token) in names.iter().zip(&tokens) {
            client.release(name, *token).await?;
        }
        Ok(())
    }, Some(&holder)).await?);
    Ok(rows)
}

/// Counts the statements and commits of `work` on a fresh client acting for `holder` (or a
/// holder of its own).
async fn account(
    what: &'static str,
    ops: usize,
    commits: &mut CommitCounter,
    url: &str,
    work: impl AsyncFnOnce(&Client) -> anyhow::Result<()>,
    holder: Option<&HolderId>,
) -> anyhow::Result<Accounted> {
    let mark = commits.mark().await?;
    let mut client = Client::connect(url).await?;
    if let Some(holder) = holder {
        client.holder = holder.clone();
    }
    let before = statements::count();
    work(&client).await?;
    let statements = statements::count() - before;
    drop(client);
    let commits = commits.since(&mark).await?;
    Ok(Accounted { what, ops: ops as u64, statements, commits })
}
