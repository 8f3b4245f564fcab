//! Due wake-ups without `LISTEN`/`NOTIFY`: a doorbell of named locks in two generations.
//!
//! One session in the whole cluster keeps the due doorbell: it holds the named lock of the
//! current generation (`baton_due_0` or `baton_due_1`). It is the doorbell connection of the
//! first backend that rang while no session kept it. A subscriber holds nothing: one
//! connection of its own blocks in `GET_LOCK` on the current generation (one statement per
//! [`LONGEST_WAIT`] at most, however long it waits). To ring, the keeper takes the other
//! generation's lock and then lets go of the current one, which wakes every blocked subscriber
//! at once; each then waits on the other generation. A subscriber that finds the generation it
//! was told to wait on free while the other is held knows that a ring happened meanwhile, so a
//! subscription reads the current generation before [`subscribe`](DueBell::subscribe) returns
//! and no ring after that is missed, however late its first wait reaches the server.
//!
//! Every ring also reaches the subscribers of the ringing backend at once, in process. A ring
//! from a backend that does not keep the doorbell reaches the subscribers of other processes
//! only at their next claim (the worker's retry period): ringing is best effort, never fails
//! an operation, and a keeper whose connection breaks lets go of the doorbell, which wakes its
//! subscribers once and leaves it to the next ringer. When no session keeps the doorbell,
//! subscribers look for a keeper once per [`LONGEST_WAIT`].

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use baton_core::job::DueChanges;
use baton_core::{Error, ErrorKind, Result};
use sqlx::mysql::MySqlConnectOptions;
use sqlx::{ConnectOptions, MySqlConnection};
use tokio::sync::{Mutex, broadcast, mpsc};

use crate::error::query_error;
use crate::queries::{DUE_BELL_GENERATION, DUE_BELL_KEEP, DUE_BELL_RING, DUE_BELL_WAIT};

/// The longest one wait for the doorbell blocks before it looks again.
const LONGEST_WAIT: Duration = Duration::from_secs(30);

/// The named lock of a generation of the doorbell.
fn lock_name(generation: u8) -> &'static str {
    if generation == 0 { "baton_due_0" } else { "baton_due_1" }
}

/// One backend's side of the due doorbell: the connection that keeps it (when this backend
/// keeps it) and the in-process feed of its own rings.
#[derive(Clone)]
pub(crate) struct DueBell {
    options: Arc<MySqlConnectOptions>,
    keeper: Arc<Mutex<Keeper>>,
    local: broadcast::Sender<()>,
}

/// The doorbell connection, and the generation it keeps (`None` when it keeps none).
#[derive(Default)]
struct Keeper {
    conn: Option<MySqlConnection>,
    generation: Option<u8>,
}

impl DueBell {
    pub(crate) fn new(options: Arc<MySqlConnectOptions>) -> Self {
        let (local, _) = broadcast::channel(1);
        DueBell { options, keeper: Arc::new(Mutex::new(Keeper::default())), local }
    }

    /// Rings after a commit that left executions due for the workers; never fails.
    pub(crate) async fn ring(&self) {
        let _ = self.local.send(());
        let mut keeper = self.keeper.lock().await;
        if let Err(err) = keeper.ring(&self.options).await {
            // Its session is gone, and the generation it kept rang with it.
            tracing::debug!(%err, "the due doorbell connection broke");
            *keeper = Keeper::default();
        }
    }

    /// Subscribes to rings; fails when the server cannot be reached.
    pub(crate) async fn subscribe(&self) -> Result<Box<dyn DueChanges>> {
        let doing = "subscribing to due executions";
        let local = self.local.subscribe();
        let mut conn = self.options.connect().await.map_err(|err| query_error(doing, err))?;
        let generation =
            current_generation(&mut conn).await.map_err(|err| query_error(doing, err))?;
        let (wakes, remote) = mpsc::channel(1);
        let task = tokio::spawn(listen(conn, generation, wakes));
        Ok(Box::new(DueSubscription {
            local,
            _keep_open: self.local.clone(),
            remote,
            task,
            broken: false,
        }))
    }
}

impl Keeper {
    /// Rings the generation kept, keeping the other; or starts keeping the doorbell when no
    /// session keeps it (then nobody waits on it yet).
    async fn ring(&mut self, options: &MySqlConnectOptions) -> sqlx::Result<()> {
        let conn = match &mut self.conn {
            Some(conn) => conn,
            None => self.conn.insert(options.connect().await?),
        };
        self.generation = match self.generation {
            Some(kept) => {
                let next = 1 - kept;
                let (taken, _released): (i64, Option<i64>) = sqlx::query_as(DUE_BELL_RING)
                    .bind(lock_name(next))
                    .bind(lock_name(kept))
                    .fetch_one(conn)
                    .await?;
                (taken == 1).then_some(next)
            }
            None => {
                let kept: i64 = sqlx::query_scalar(DUE_BELL_KEEP).fetch_one(conn).await?;
                (kept == 1).then_some(0)
            }
        };
        Ok(())
    }
}

/// The generation of the doorbell kept now, if any session keeps it.
async fn current_generation(conn: &mut MySqlConnection) -> sqlx::Result<Option<u8>> {
    let generation: Option<i64> = sqlx::query_scalar(DUE_BELL_GENERATION).fetch_one(conn).await?;
    Ok(generation.map(|generation| u8::from(generation == 1)))
}

/// Waits for rings on `conn`, passing each on, until the subscription is dropped (which aborts
/// this task and closes the connection) or the connection breaks.
async fn listen(
    mut conn: MySqlConnection,
    mut generation: Option<u8>,
    wakes: mpsc::Sender<Result<()>>,
) {
    let doing = "waiting for due executions";
    loop {
        let Some(waiting) = generation else {
            tokio::time::sleep(LONGEST_WAIT).await;
            match current_generation(&mut conn).await {
                Ok(found) => generation = found,
                Err(err) => {
                    let _ = wakes.send(Err(query_error(doing, err))).await;
                    return;
                }
            }
            continue;
        };
        let rang: std::result::Result<Option<i64>, sqlx::Error> = sqlx::query_scalar(DUE_BELL_WAIT)
            .bind(lock_name(waiting))
            .bind(lock_name(1 - waiting))
            .bind(lock_name(waiting))
            .bind(LONGEST_WAIT.as_secs())
            .bind(lock_name(waiting))
            .fetch_one(&mut conn)
            .await;
        match rang {
            Ok(Some(0)) => {}
            Ok(Some(_)) => {
                // A full channel already holds a wake-up the subscriber has not taken.
                let _ = wakes.try_send(Ok(()));
                generation = Some(1 - waiting);
            }
            Ok(None) => generation = None,
            Err(err) => {
                let _ = wakes.send(Err(query_error(doing, err))).await;
                return;
            }
        }
    }
}

/// A subscription: rings of this backend in process, and rings of the keeper over its own
/// connection.
struct DueSubscription {
    local: broadcast::Receiver<()>,
    /// Keeps the in-process feed open as long as the subscription lives.
    _keep_open: broadcast::Sender<()>,
    remote: mpsc::Receiver<Result<()>>,
    task: tokio::task::JoinHandle<()>,
    broken: bool,
}

impl Drop for DueSubscription {
    fn drop(&mut self) {
        self.task.abort();
    }
}

fn broken_feed() -> Error {
    Error::new(
        ErrorKind::Unavailable,
        "the due-execution feed lost its MySQL connection: subscribe again",
    )
}

#[async_trait]
impl DueChanges for DueSubscription {
    async fn next(&mut self) -> Result<()> {
        if self.broken {
            return Err(broken_feed());
        }
        tokio::select! {
            // A lagging receiver missed rings, which is one wake-up all the same.
            _ = self.local.recv() => Ok(()),
            remote = self.remote.recv() => match remote {
                Some(Ok(())) => Ok(()),
                Some(Err(err)) => {
                    self.broken = true;
                    Err(err)
                }
                None => {
                    self.broken = true;
                    Err(broken_feed())
                }
            },
        }
    }
}
