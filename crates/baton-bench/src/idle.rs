//! Idle load: one `Elector` holding many leases, counting what its renewals cost the store
//! over three renew intervals.

use std::time::{Duration, Instant};

use baton::{Acquisition, Elector, ElectorConfig, HolderId, LeaderGuard, LeaseName};

use crate::probe::{self, Probe};
use crate::statements;
use crate::writes::WriteCount;

/// The short TTL of this scenario where the store grants it, so that renewals come quickly.
const TTL: Duration = Duration::from_secs(2);
/// Renew intervals measured.
const INTERVALS: u64 = 3;
/// Tasks acquiring the leases at once.
const ACQUIRERS: usize = 8;

/// What holding the leases cost.
#[derive(Debug, Clone)]
pub(crate) struct Idle {
    /// The leases' TTL: [`TTL`], or the store's granted TTL nearest to it.
    pub(crate) ttl: Duration,
    /// Leases held.
    pub(crate) leases: usize,
    /// The renew interval.
    pub(crate) renew_interval: Duration,
    /// Renew intervals measured.
    pub(crate) intervals: u64,
    /// How long they took.
    pub(crate) elapsed: Duration,
    /// Statements counted meanwhile.
    pub(crate) statements: u64,
    /// Calls the elector made to its store meanwhile.
    pub(crate) store_calls: u64,
    /// Write transactions the store counted meanwhile, where it counts them.
    pub(crate) writes: Option<u64>,
    /// Leases lost by the end of the measurement (should be none).
    pub(crate) lost: usize,
}

/// Holds `leases` leases with one elector and measures [`INTERVALS`] renew intervals, counting
/// the store's writes with `writes` if given.
pub(crate) async fn run(
    url: &str,
    run: &str,
    leases: usize,
    mut writes: Option<&mut (dyn WriteCount + 'static)>,
) -> anyhow::Result<Idle> {
    let (store, mut seen) = Probe::wrap(baton::connect_leases(url).await?);
    let ttl = store.capabilities().ttls.nearest(TTL);
    let mut config =
        ElectorConfig::new(HolderId::generate("bench", fastrand::u32(..))).with_ttl(ttl);
    // Twice the scaled default, so that a busy benchmark machine is not taken for a stall.
    config.stall_threshold = config.renew_interval * 2;
    let renew_interval = config.renew_interval;
    let elector = Elector::new(store, config)?;
    let guards = acquire_all(&elector, run, leases).await?;

    let settled = seen.borrow().renewals;
    let first =
        probe::wait_until(&mut seen, renew_interval * 10, "a renewal", |s| s.renewals > settled)
            .await?;
    let writes_before = match writes.as_deref_mut() {
        Some(count) => Some(count.writes_now().await?),
        None => None,
    };
    let statements_before = statements::count();
    let started = Instant::now();
    let last =
        probe::wait_until(&mut seen, renew_interval * 10 * INTERVALS as u32, "renewals", |s| {
            s.renewals >= first.renewals + INTERVALS
        })
        .await?;
    let statements = statements::count() - statements_before;
    let elapsed = started.elapsed();
    let writes = match (writes, writes_before) {
        (Some(count), Some(before)) => Some(count.writes_now().await?.saturating_sub(before)),
        _ => None,
    };
    let lost = guards.iter().filter(|guard| guard.is_cancelled()).count();

    drop(guards);
    elector.shutdown().await;
    Ok(Idle {
        ttl,
        leases,
        renew_interval,
        intervals: INTERVALS,
        elapsed,
        statements,
        store_calls: last.calls - first.calls,
        writes,
        lost,
    })
}

/// Acquires `count` free leases, a few at a time.
async fn acquire_all(
    elector: &Elector,
    run: &str,
    count: usize,
) -> anyhow::Result<Vec<LeaderGuard>> {
    let names = (0..count)
        .map(|i| LeaseName::new(format!("bench-{run}-idle{count}-{i}")))
        .collect::<baton::Result<Vec<_>>>()?;
    let mut tasks = Vec::with_capacity(ACQUIRERS);
    for part in names.chunks(count.div_ceil(ACQUIRERS).max(1)) {
        let (elector, part) = (elector.clone(), part.to_vec());
        tasks.push(tokio::spawn(async move {
            let mut guards = Vec::with_capacity(part.len());
            for name in part {
                match elector.try_acquire(&name).await? {
                    Acquisition::Acquired(guard) => guards.push(guard),
                    _ => anyhow::bail!("lease {name} was expected free"),
                }
            }
            Ok(guards)
        }));
    }
    let mut guards = Vec::with_capacity(count);
    for part in crate::timed::join_all(tasks).await? {
        guards.extend(part);
    }
    Ok(guards)
}
