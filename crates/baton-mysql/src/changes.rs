//! Release notifications over doorbells (see `bell`).
//!
//! A subscription watches the leases that this backend's acquisitions were refused: for each,
//! one connection blocks on the lease's doorbell, then reads the lease once to tell a release
//! (the refused term ended) from a holder without a doorbell, and reports only a release. A
//! watch ends after the refused lease's TTL; the next refusal starts another.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use baton_core::{Error, ErrorKind, FencingToken, HolderId, LeaseChanges, LeaseName, Result};
use sqlx::mysql::MySqlConnectOptions;
use sqlx::{ConnectOptions, MySqlConnection};
use tokio::sync::{broadcast, mpsc};
use tokio::task::JoinSet;

use crate::error::query_error;
use crate::queries::{BELL_WAIT, LEASE_GET};
use crate::row;

/// How many idle watching connections a subscription keeps for its next watches.
const IDLE_WATCHERS: usize = 4;
/// The longest a watch blocks before it ends (a refusal starts another).
const LONGEST_WATCH: Duration = Duration::from_secs(60);

/// An acquisition refused by a live term: the lease, and the term that held it.
#[derive(Debug, Clone)]
pub(crate) struct Refusal {
    pub(crate) name: LeaseName,
    pub(crate) holder: Option<HolderId>,
    pub(crate) token: FencingToken,
    pub(crate) ttl: Duration,
}

/// Where a backend's lease stores announce their refusals to its subscriptions.
pub(crate) type Refusals = broadcast::Sender<Refusal>;

/// Subscribes to releases of the leases refused from now on; fails when the server cannot be
/// reached.
pub(crate) async fn subscribe(
    options: &Arc<MySqlConnectOptions>,
    refusals: &Refusals,
) -> Result<Box<dyn LeaseChanges>> {
    let first =
        options.connect().await.map_err(|err| query_error("subscribing to lease releases", err))?;
    let (wakes, received) = mpsc::channel(64);
    let task = tokio::spawn(dispatch(options.clone(), refusals.subscribe(), wakes, first));
    Ok(Box::new(Subscription { wakes: received, task, broken: false }))
}

struct Subscription {
    wakes: mpsc::Receiver<Result<LeaseName>>,
    task: tokio::task::JoinHandle<()>,
    broken: bool,
}

impl Drop for Subscription {
    fn drop(&mut self) {
        // Aborting the dispatcher drops its watches, and with them their connections.
        self.task.abort();
    }
}

fn broken_feed() -> Error {
    Error::new(
        ErrorKind::Unavailable,
        "the lease release feed lost its MySQL connection: subscribe again",
    )
}

#[async_trait]
impl LeaseChanges for Subscription {
    async fn next(&mut self) -> Result<LeaseName> {
        if self.broken {
            return Err(broken_feed());
        }
        match self.wakes.recv().await {
            Some(Ok(name)) => Ok(name),
            Some(Err(err)) => {
                self.broken = true;
                Err(err)
            }
            None => {
                self.broken = true;
                Err(broken_feed())
            }
        }
    }
}

type Watched = (LeaseName, Result<(bool, MySqlConnection)>);

/// Starts one watch per refused lease not yet watched, and passes releases on.
async fn dispatch(
    options: Arc<MySqlConnectOptions>,
    mut refusals: broadcast::Receiver<Refusal>,
    wakes: mpsc::Sender<Result<LeaseName>>,
    first: MySqlConnection,
) {
    let mut idle = vec![first];
    let mut watching = HashSet::new();
    let mut watches: JoinSet<Watched> = JoinSet::new();
    loop {
        tokio::select! {
            refusal = refusals.recv() => match refusal {
                Ok(refusal) => {
                    if watching.insert(refusal.name.clone()) {
                        watches.spawn(watch(options.clone(), idle.pop(), refusal));
                    }
                }
                // Refusals were missed: their waiters fall back to their retry period.
                Err(broadcast::error::RecvError::Lagged(_)) => {}
                Err(broadcast::error::RecvError::Closed) => return,
            },
            Some(done) = watches.join_next(), if !watches.is_empty() => {
                let Ok((name, outcome)) = done else { continue };
                watching.remove(&name);
                match outcome {
                    Ok((released, conn)) => {
                        if idle.len() < IDLE_WATCHERS {
                            idle.push(conn);
                        }
                        if released && wakes.send(Ok(name)).await.is_err() {
                            return;
                        }
                    }
                    Err(err) => {
                        let _ = wakes.send(Err(err)).await;
                        return;
                    }
                }
            }
        }
    }
}

/// Blocks on a refused lease's doorbell for up to its TTL, then answers whether the refused
/// term has ended.
async fn watch(
    options: Arc<MySqlConnectOptions>,
    conn: Option<MySqlConnection>,
    refusal: Refusal,
) -> Watched {
    let outcome = watch_on(&options, conn, &refusal).await;
    (refusal.name, outcome)
}

async fn watch_on(
    options: &MySqlConnectOptions,
    conn: Option<MySqlConnection>,
    refusal: &Refusal,
) -> Result<(bool, MySqlConnection)> {
    let action = || format!("waiting for lease {} to be released", refusal.name);
    let mut conn = match conn {
        Some(conn) => conn,
        None => options.connect().await.map_err(|err| query_error(action(), err))?,
    };
    let name = refusal.name.as_str();
    let seconds = refusal.ttl.min(LONGEST_WATCH).as_secs().max(1) + 1;
    let rang: bool = sqlx::query_scalar(BELL_WAIT)
        .bind(name)
        .bind(seconds)
        .bind(name)
        .fetch_one(&mut conn)
        .await
        .map_err(|err| query_error(action(), err))?;
    if !rang {
        return Ok((false, conn));
    }
    let found = sqlx::query(LEASE_GET)
        .bind(name)
        .fetch_optional(&mut conn)
        .await
        .map_err(|err| query_error(action(), err))?;
    let ended = match found {
        None => true,
        Some(found) => {
            let lease = row::lease(&found)?;
            let holder = lease.holder_at(row::now(&found)?);
            holder != refusal.holder.as_ref() || lease.token != refusal.token
        }
    };
    Ok((ended, conn))
}
