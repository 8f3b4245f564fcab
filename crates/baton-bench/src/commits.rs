//! Counting commits on the store's side, not from the client's guess.
//!
//! - **SQLite**: the WAL index (`<database>-shm`) header holds `iChange`, a counter SQLite
//!   increments for every transaction that commits changes to the WAL, from any connection or
//!   process. It survives checkpoints for as long as one connection keeps the file open, which
//!   the counter's own connection does. Transactions that change nothing (a refused
//!   acquisition rolls back) do not move it.
//! - **PostgreSQL**: `pg_stat_database.xact_commit` for the database. Sessions publish their
//!   counts lazily (at most once a second while busy, and when they end), so a measurement
//!   ends by waiting until every session opened for it has closed. Each new session also
//!   commits once while it starts up; `pg_stat_database.sessions` counts them and that many
//!   commits are taken off, as are the counter's own statements.
//! - **MySQL/MariaDB**: InnoDB's `trx_rw_commits` metric (`information_schema.INNODB_METRICS`),
//!   the read-write transactions committed by every session, counted as they commit. The counter
//!   enables the metric, which takes the `PROCESS` and `SUPER` (or `SYSTEM_VARIABLES_ADMIN`)
//!   privileges. Its own reads write nothing and are not counted.

use std::collections::HashSet;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::Context;
use async_trait::async_trait;
use sqlx::{Connection, MySqlConnection, PgConnection, SqliteConnection};

use crate::target::Target;
use crate::writes::WriteCount;

/// How long a measurement waits for its sessions to close before reading anyway.
const CLOSE_WAIT: Duration = Duration::from_secs(10);
/// Offset of `iChange` in each of the two copies of the WAL-index header.
const ICHANGE_OFFSET: usize = 8;
/// Size of one copy of the WAL-index header.
const WAL_HEADER_BYTES: usize = 48;

/// The store's own count of commits.
pub(crate) enum CommitCounter {
    /// SQLite: the WAL index header, kept alive by an open connection.
    Sqlite {
        /// The `-shm` file beside the database.
        shm: PathBuf,
        /// Keeps the WAL index from being removed between measurements.
        anchor: SqliteConnection,
    },
    /// PostgreSQL: the cumulative statistics, read on a session of the counter's own.
    Postgres {
        /// The counter's session.
        conn: PgConnection,
        /// Statements this session has issued; each is one commit of its own.
        issued: u64,
    },
    /// MySQL/MariaDB: InnoDB's metric, read on a session of the counter's own.
    Mysql {
        /// The counter's session.
        conn: MySqlConnection,
    },
}

/// A reading taken before a measurement.
#[derive(Debug, Clone)]
pub(crate) struct Mark {
    commits: u64,
    sessions: u64,
    issued: u64,
    others: HashSet<i32>,
}

impl CommitCounter {
    /// Opens the counter's connection.
    pub(crate) async fn open(target: &Target) -> anyhow::Result<Self> {
        match target {
            Target::Sqlite { path } => {
                let mut anchor =
                    SqliteConnection::connect_with(&Target::sqlite_options(path)).await?;
                sqlx::query(include_str!("../sql/sqlite_touch.sql")).execute(&mut anchor).await?;
                let mut shm = path.clone().into_os_string();
                shm.push("-shm");
                Ok(CommitCounter::Sqlite { shm: shm.into(), anchor })
            }
            Target::Postgres { options } => {
                let conn = PgConnection::connect_with(options).await?;
                let mut counter = CommitCounter::Postgres { conn, issued: 0 };
                // The session's own start-up is published with its first statistics; an empty
                // measurement absorbs it so the first real one starts clean.
                let mark = counter.mark().await?;
                counter.since(&mark).await?;
                Ok(counter)
            }
            Target::Mysql { options } => {
                let mut conn = MySqlConnection::connect_with(options).await?;
                sqlx::query(include_str!("../sql/mysql_enable_commit_metric.sql"))
                    .execute(&mut conn)
                    .await
                    .context(
                        "enabling InnoDB's trx_rw_commits metric to count commits (the bench \
                         user needs the PROCESS and SUPER privileges)",
                    )?;
                Ok(CommitCounter::Mysql { conn })
            }
        }
    }

    /// Reads the counter before a measurement. On PostgreSQL every session opened after this
    /// must be closed before [`CommitCounter::since`].
    pub(crate) async fn mark(&mut self) -> anyhow::Result<Mark> {
        match self {
            CommitCounter::Sqlite { shm, .. } => {
                let commits = read_wal_changes(shm)?;
                Ok(Mark { commits, sessions: 0, issued: 0, others: HashSet::new() })
            }
            CommitCounter::Postgres { conn, issued } => {
                let others = other_sessions(conn, issued).await?;
                force_flush(conn, issued).await?;
                let before_read = *issued;
                let (commits, sessions) = database_stats(conn, issued).await?;
                Ok(Mark { commits, sessions, issued: before_read, others })
            }
            CommitCounter::Mysql { conn } => {
                let commits = innodb_commits(conn).await?;
                Ok(Mark { commits, sessions: 0, issued: 0, others: HashSet::new() })
            }
        }
    }

    /// Commits made by others since `mark`, once the sessions opened since have closed.
    pub(crate) async fn since(&mut self, mark: &Mark) -> anyhow::Result<u64> {
        match self {
            CommitCounter::Sqlite { shm, .. } => {
                let now = read_wal_changes(shm)?;
                Ok(now.wrapping_sub(mark.commits) & u64::from(u32::MAX))
            }
            CommitCounter::Postgres { conn, issued } => {
                wait_for_sessions_to_close(conn, issued, &mark.others).await?;
                force_flush(conn, issued).await?;
                let own = *issued - mark.issued;
                let (commits, sessions) = database_stats(conn, issued).await?;
                let new_sessions = sessions.saturating_sub(mark.sessions);
                Ok(commits.saturating_sub(mark.commits).saturating_sub(new_sessions + own))
            }
            CommitCounter::Mysql { conn } => {
                Ok(innodb_commits(conn).await?.saturating_sub(mark.commits))
            }
        }
    }

    /// Closes the counter's connection (on SQLite the last one lets the WAL be checkpointed).
    pub(crate) async fn close(self) -> anyhow::Result<()> {
        match self {
            CommitCounter::Sqlite { anchor, .. } => anchor.close().await?,
            CommitCounter::Postgres { conn, .. } => conn.close().await?,
            CommitCounter::Mysql { conn } => conn.close().await?,
        }
        Ok(())
    }
}

#[async_trait]
impl WriteCount for CommitCounter {
    /// A counter of writing transactions that needs no waiting: SQLite's WAL commit counter,
    /// or PostgreSQL's next transaction id (every writing transaction takes one).
    async fn writes_now(&mut self) -> anyhow::Result<u64> {
        match self {
            CommitCounter::Sqlite { shm, .. } => read_wal_changes(shm),
            CommitCounter::Postgres { conn, issued } => {
                *issued += 1;
                let next: i64 = sqlx::query_scalar(include_str!("../sql/pg_next_xid.sql"))
                    .fetch_one(&mut *conn)
                    .await?;
                Ok(u64::try_from(next).unwrap_or(0))
            }
            CommitCounter::Mysql { conn } => innodb_commits(conn).await,
        }
    }

    fn label(&self) -> &'static str {
        match self {
            CommitCounter::Sqlite { .. } => "commits (WAL commit counter)",
            CommitCounter::Postgres { .. } => "writing transactions (transaction ids taken)",
            CommitCounter::Mysql { .. } => "commits (InnoDB read-write commits)",
        }
    }
}

/// InnoDB's count of read-write transactions committed so far, by every session.
async fn innodb_commits(conn: &mut MySqlConnection) -> anyhow::Result<u64> {
    let count: i64 = sqlx::query_scalar(include_str!("../sql/mysql_commit_metric.sql"))
        .fetch_one(&mut *conn)
        .await
        .context("reading InnoDB's trx_rw_commits metric")?;
    Ok(u64::try_from(count).unwrap_or(0))
}

/// Reads `iChange` from the WAL-index header, retrying while a writer updates it (the two
/// copies then differ).
fn read_wal_changes(shm: &std::path::Path) -> anyhow::Result<u64> {
    for _ in 0..1000 {
        let bytes = std::fs::read(shm)
            .with_context(|| format!("reading the SQLite WAL index {}", shm.display()))?;
        anyhow::ensure!(
            bytes.len() >= 2 * WAL_HEADER_BYTES,
            "the SQLite WAL index {} is too short to read",
            shm.display()
        );
        let (first, second) =
            (&bytes[..WAL_HEADER_BYTES], &bytes[WAL_HEADER_BYTES..2 * WAL_HEADER_BYTES]);
        if first == second {
            let mut counter = [0u8; 4];
            counter.copy_from_slice(&first[ICHANGE_OFFSET..ICHANGE_OFFSET + 4]);
            return Ok(u64::from(u32::from_ne_bytes(counter)));
        }
        std::thread::yield_now();
    }
    anyhow::bail!("the SQLite WAL index {} kept changing while being read", shm.display())
}

async fn other_sessions(conn: &mut PgConnection, issued: &mut u64) -> anyhow::Result<HashSet<i32>> {
    *issued += 1;
    let pids: Vec<i32> = sqlx::query_scalar(include_str!("../sql/pg_other_sessions.sql"))
        .fetch_all(&mut *conn)
        .await?;
    Ok(pids.into_iter().collect())
}

async fn force_flush(conn: &mut PgConnection, issued: &mut u64) -> anyhow::Result<()> {
    *issued += 1;
    sqlx::query(include_str!("../sql/pg_force_flush.sql")).execute(&mut *conn).await.context(
        "pg_stat_force_next_flush() (PostgreSQL 15 or later is needed to count commits)",
    )?;
    Ok(())
}

async fn database_stats(conn: &mut PgConnection, issued: &mut u64) -> anyhow::Result<(u64, u64)> {
    *issued += 1;
    let (commits, sessions): (i64, i64) =
        sqlx::query_as(include_str!("../sql/pg_database_stats.sql")).fetch_one(&mut *conn).await?;
    Ok((u64::try_from(commits).unwrap_or(0), u64::try_from(sessions).unwrap_or(0)))
}

/// Waits until every session on the database other than the counter's was already there at
/// the mark: sessions publish their last statistics as they end.
async fn wait_for_sessions_to_close(
    conn: &mut PgConnection,
    issued: &mut u64,
    before: &HashSet<i32>,
) -> anyhow::Result<()> {
    let started = Instant::now();
    loop {
        let now = other_sessions(conn, issued).await?;
        if now.is_subset(before) {
            return Ok(());
        }
        if started.elapsed() > CLOSE_WAIT {
            eprintln!(
                "bench: {} session(s) opened during a measurement are still open after {:?}; \
                 their latest commits may be missing from the count",
                now.difference(before).count(),
                CLOSE_WAIT
            );
            return Ok(());
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
