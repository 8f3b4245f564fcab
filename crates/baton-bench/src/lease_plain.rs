//! baton's own MySQL lease statements driven by a plain client loop: the same statements, in the
//! same transactions and with the same doorbell, sent straight through sqlx by a loop that knows
//! its lease is free, without baton's lease store, its rules or its pool. Beside the lease cycles
//! it tells what the statements cost from what baton's client adds to them.
//!
//! The statements are the backend's own files, so the loop runs what baton runs.

use std::time::Instant;

use sqlx::mysql::MySqlConnectOptions;
use sqlx::{ConnectOptions, Connection, Executor, MySqlConnection};

use crate::client::TTL;
use crate::commits::CommitCounter;
use crate::statements;
use crate::timed::{self, Measured, OpKind, Sample, Samples, Window};

/// The session setting of baton's MySQL connections.
const SESSION_SETUP: &str = "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED";
const TOKEN_NEXT: &str = include_str!("../../baton-mysql/queries/token_next.sql");
const LEASE_LOCK: &str = include_str!("../../baton-mysql/queries/lease_lock.sql");
const NOW: &str = include_str!("../../baton-mysql/queries/now.sql");
const LEASE_INSERT: &str = include_str!("../../baton-mysql/queries/lease_insert.sql");
const LEASE_TAKE: &str = include_str!("../../baton-mysql/queries/lease_take.sql");
const LEADER_CHANGE_INSERT: &str =
    include_str!("../../baton-mysql/queries/leader_change_insert.sql");
const LEASE_RENEW: &str = include_str!("../../baton-mysql/queries/lease_renew.sql");
const LEASE_RELEASE: &str = include_str!("../../baton-mysql/queries/lease_release.sql");
const BELL_TAKE: &str = include_str!("../../baton-mysql/queries/bell_take.sql");
const BELL_RING: &str = include_str!("../../baton-mysql/queries/bell_ring.sql");

/// `clients` plain loops, each cycling acquire → renew → release on a lease of its own, over a
/// connection for the statements and one for the doorbell, as a baton client has.
pub(crate) async fn cycles(
    options: &MySqlConnectOptions,
    run: &str,
    clients: usize,
    length: std::time::Duration,
    commits: &mut CommitCounter,
) -> anyhow::Result<Measured> {
    let mark = commits.mark().await?;
    let mut loops = Vec::with_capacity(clients);
    for i in 0..clients {
        let name = format!("bench-{run}-plain{clients}-{i}");
        loops.push(PlainLoop::open(options, name).await?);
    }
    let statements_before = statements::count();
    let window = Window::open(length);
    let workers = loops.into_iter().map(|plain| tokio::spawn(plain.cycle(window))).collect();
    let samples = Samples::new(timed::join_all(workers).await?, length);
    let statements = statements::count() - statements_before;
    let commits = commits.since(&mark).await?;
    Ok(Measured { samples, statements, commits })
}

/// One loop: its lease, its holder name and its two connections.
struct PlainLoop {
    name: String,
    holder: String,
    conn: MySqlConnection,
    bell: MySqlConnection,
}

impl PlainLoop {
    /// Opens its connections; the statements' session reads committed rows, as baton's do.
    async fn open(options: &MySqlConnectOptions, name: String) -> anyhow::Result<Self> {
        let holder = format!("bench-plain-{}", fastrand::u32(..));
        let mut conn = options.connect().await?;
        conn.execute(SESSION_SETUP).await?;
        Ok(PlainLoop { name, holder, conn, bell: options.connect().await? })
    }

    /// Cycles until the window closes, then closes its connections.
    async fn cycle(mut self, window: Window) -> anyhow::Result<Vec<Sample>> {
        let mut samples = Vec::new();
        while window.is_open() {
            let began = Instant::now();
            let token = self.acquire().await?;
            samples.push(window.sample(OpKind::Acquire, began));
            let began = Instant::now();
            self.renew(token).await?;
            samples.push(window.sample(OpKind::Renew, began));
            let began = Instant::now();
            self.release(token).await?;
            samples.push(window.sample(OpKind::Release, began));
        }
        self.conn.close().await?;
        self.bell.close().await?;
        Ok(samples)
    }

    /// The acquisition's transaction (token, locked read, write, history) and its doorbell.
    async fn acquire(&mut self) -> anyhow::Result<i64> {
        let name = self.name.as_str();
        let mut tx = self.conn.begin().await?;
        let token = sqlx::query(TOKEN_NEXT).bind(name).execute(&mut *tx).await?.last_insert_id();
        let token = i64::try_from(token)?;
        let locked =
            sqlx::query_as::<_, LockedRow>(LEASE_LOCK).bind(name).fetch_optional(&mut *tx).await?;
        let now = match &locked {
            Some(row) => row.now_ms,
            None => sqlx::query_scalar::<_, i64>(NOW).fetch_one(&mut *tx).await?,
        };
        let ttl = i64::try_from(TTL.as_millis())?;
        // The loop's lease is free: fresh the first time, then handed over by its own release.
        let (reason, previous_end) = match &locked {
            Some(row) => ("handover", Some(row.expires_at)),
            None => ("fresh", None),
        };
        let write = match locked {
            Some(_) => sqlx::query(LEASE_TAKE),
            None => sqlx::query(LEASE_INSERT).bind(name),
        };
        let write = write
            .bind(self.holder.as_str())
            .bind(token)
            .bind(now)
            .bind(now)
            .bind(now + ttl)
            .bind(ttl)
            .bind(reason);
        let write = if locked.is_some() { write.bind(name) } else { write };
        write.execute(&mut *tx).await?;
        sqlx::query(LEADER_CHANGE_INSERT)
            .bind(name)
            .bind(self.holder.as_str())
            .bind(token)
            .bind(now)
            .bind(reason)
            .bind(previous_end)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        let taken: i64 =
            sqlx::query_scalar(BELL_TAKE).bind(name).bind(name).fetch_one(&mut self.bell).await?;
        anyhow::ensure!(taken == 1, "the doorbell of {name} was not free");
        Ok(token)
    }

    /// The compare-and-set renewal, which answers its instant: nothing is read back.
    async fn renew(&mut self, token: i64) -> anyhow::Result<()> {
        let renewed = sqlx::query(LEASE_RENEW)
            .bind(self.name.as_str())
            .bind(self.holder.as_str())
            .bind(token)
            .execute(&mut self.conn)
            .await?;
        anyhow::ensure!(renewed.rows_affected() == 1, "lease {} was not renewed", self.name);
        anyhow::ensure!(renewed.last_insert_id() > 0, "lease {} answered no instant", self.name);
        Ok(())
    }

    /// The compare-and-set release and the doorbell's ring.
    async fn release(&mut self, token: i64) -> anyhow::Result<()> {
        let released = sqlx::query(LEASE_RELEASE)
            .bind(self.name.as_str())
            .bind(self.holder.as_str())
            .bind(token)
            .execute(&mut self.conn)
            .await?;
        anyhow::ensure!(released.rows_affected() == 1, "lease {} was not released", self.name);
        sqlx::query(BELL_RING).bind(self.name.as_str()).fetch_one(&mut self.bell).await?;
        Ok(())
    }
}

/// The columns of the locked lease row the loop needs: the server's clock and when the last
/// term ended.
#[derive(sqlx::FromRow)]
struct LockedRow {
    now_ms: i64,
    expires_at: i64,
}
