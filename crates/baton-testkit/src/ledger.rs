//! A fenced ledger and its checker, for lease holders and job handlers alike.
//!
//! Writers append entries to a resource through its fence (invariant I4): each append is one
//! transaction that first checks and bumps the resource's fence with the writer's token, then
//! inserts the entry. A refused append is recorded as a rejection in a separate transaction.
//! Lease holders taking turns write to one resource ([`RESOURCE`]); jobs write to one each, so
//! that a slow job's write at the end of a long run is not refused because a quicker job wrote
//! meanwhile under a newer token. The checker walks each resource's accepted entries in commit
//! order: an entry whose token is below a token accepted before it on the same resource is a
//! stale write that got through, and must never exist.
//!
//! A writer acting under a claim passes its validity check to the append, which runs it inside
//! the transaction right before the insert and records the margin it answers: how long the
//! claim still had on the writer's own monotonic clock. An entry with no margin left was written
//! after its claim's deadline had passed, and must never exist either.

use std::collections::HashMap;
use std::time::Duration;

use anyhow::Context;
use baton::FencingToken;
use sqlx::mysql::{MySqlConnectOptions, MySqlPoolOptions};
use sqlx::postgres::{PgConnectOptions, PgPoolOptions};
use sqlx::sqlite::SqlitePoolOptions;
use sqlx::{Executor, MySqlPool, PgPool, SqlitePool};

use crate::history::{self, Fenced};

/// The resource lease holders append to.
pub const RESOURCE: &str = "ledger";

/// How long (ms) PostgreSQL lets a ledger session sit idle inside a transaction: well below the
/// fault tests' patience, well above an append.
const IDLE_IN_TRANSACTION_MS: &str = "2000";
/// The same on MariaDB (`idle_transaction_timeout`, in seconds).
const MARIADB_IDLE_IN_TRANSACTION: &str = "SET SESSION idle_transaction_timeout = 2";

/// What became of one append.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Append {
    /// The fence accepted the token and the entry was committed.
    Accepted,
    /// The fence refused the token as stale; nothing was written but the rejection.
    Rejected,
    /// The writer's claim was no longer valid when the entry was about to be written; nothing
    /// was written.
    Stopped,
}

/// Checks, right before an entry is written, that the writer's claim is valid, and answers how
/// long it still has until its deadline.
pub type ValidityCheck<'a> = &'a (dyn Fn() -> baton::Result<Duration> + Sync);

/// What the checker found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LedgerReport {
    /// Entries committed.
    pub accepted: u64,
    /// Appends refused by the fence.
    pub rejected: u64,
    /// Entries committed with a token lower than one committed before them (must be 0).
    pub stale_accepted: u64,
    /// Entries checked against a claim and written with no margin left before its deadline
    /// (must be 0).
    pub late: u64,
}

/// `$body` with `$pool` bound to the ledger's pool, whichever store it is on: the same code,
/// type-checked once per driver.
macro_rules! on_each_pool {
    ($ledger:expr, $pool:ident => $body:expr) => {
        match $ledger {
            $crate::ledger::Ledger::Postgres($pool) => $body,
            $crate::ledger::Ledger::Sqlite($pool) => $body,
            $crate::ledger::Ledger::Mysql($pool) => $body,
        }
    };
}
pub(crate) use on_each_pool;

/// In one transaction on the ledger's store, `$resource`'s fence checked and bumped with
/// `$token` by the backend's own helper, then `$body` with `$tx` bound to the transaction (the
/// body commits it): `Some` of the body's value, or `None` when the fence refused the token as
/// stale and the body did not run. Any other error returns from the enclosing function.
macro_rules! fenced_transaction {
    ($ledger:expr, $resource:expr, $token:expr, $tx:ident => $body:expr) => {
        match $ledger {
            $crate::ledger::Ledger::Postgres(pool) => {
                let mut $tx = pool.begin().await?;
                match baton::postgres::check_and_bump(&mut $tx, $resource, $token).await {
                    Ok(()) => Some($body),
                    Err(baton::postgres::FenceError::Stale { .. }) => None,
                    Err(err) => return Err(err.into()),
                }
            }
            $crate::ledger::Ledger::Sqlite(pool) => {
                let mut conn = pool.acquire().await?;
                let mut $tx = sqlx::Connection::begin_with(&mut *conn, "BEGIN IMMEDIATE").await?;
                match baton::sqlite::fence::check_and_bump(&mut $tx, $resource, $token).await {
                    Ok(()) => Some($body),
                    Err(baton::sqlite::FenceError::Stale { .. }) => None,
                    Err(err) => return Err(err.into()),
                }
            }
            $crate::ledger::Ledger::Mysql(pool) => {
                let mut $tx = pool.begin().await?;
                match baton::mysql::check_and_bump(&mut $tx, $resource, $token).await {
                    Ok(()) => Some($body),
                    Err(baton::mysql::FenceError::Stale { .. }) => None,
                    Err(err) => return Err(err.into()),
                }
            }
        }
    };
}
pub(crate) use fenced_transaction;

/// Connections per process: a writer appends and records rejections; a checker reads.
const POOL_SIZE: u32 = 4;

/// A ledger on a SQL store.
#[derive(Debug, Clone)]
pub enum Ledger {
    /// On PostgreSQL.
    Postgres(PgPool),
    /// On a SQLite file.
    Sqlite(SqlitePool),
    /// On MariaDB.
    Mysql(MySqlPool),
}

impl Ledger {
    /// Opens the ledger on the store at `url` (whose baton schema must be migrated) and
    /// creates its tables. Run it once before writers that [`Ledger::connect`] start:
    /// PostgreSQL's `CREATE TABLE IF NOT EXISTS` can fail when two sessions race.
    pub async fn open(url: &str) -> anyhow::Result<Self> {
        let ledger = Ledger::connect(url).await?;
        let tables = match &ledger {
            Ledger::Postgres(_) => include_str!("../sql/ledger_postgres.sql"),
            Ledger::Sqlite(_) => include_str!("../sql/ledger_sqlite.sql"),
            Ledger::Mysql(_) => include_str!("../sql/ledger_mysql.sql"),
        };
        on_each_pool!(&ledger, pool => {
            sqlx::raw_sql(tables).execute(pool).await?;
        });
        Ok(ledger)
    }

    /// Connects to the ledger on the store at `url`, whose tables exist.
    pub async fn connect(url: &str) -> anyhow::Result<Self> {
        let ledger = if url.starts_with("postgres") {
            // A writer cut off in the middle of an append keeps the fence row locked until the
            // server ends its session; this ends it soon, so the next holder is not held up.
            let options = url
                .parse::<PgConnectOptions>()?
                .options([("idle_in_transaction_session_timeout", IDLE_IN_TRANSACTION_MS)]);
            let pool = PgPoolOptions::new()
                .max_connections(POOL_SIZE)
                .connect_with(options)
                .await
                .context("opening the PostgreSQL ledger")?;
            Ledger::Postgres(pool)
        } else if url.starts_with("mysql") || url.starts_with("mariadb") {
            // As on PostgreSQL: a writer cut off inside an append must not keep the fence row
            // locked for long.
            let options =
                url.replacen("mariadb://", "mysql://", 1).parse::<MySqlConnectOptions>()?;
            let pool = MySqlPoolOptions::new()
                .max_connections(POOL_SIZE)
                .after_connect(|conn, _| {
                    Box::pin(async move {
                        conn.execute(MARIADB_IDLE_IN_TRANSACTION).await?;
                        Ok(())
                    })
                })
                .connect_with(options)
                .await
                .context("opening the MariaDB ledger")?;
            Ledger::Mysql(pool)
        } else {
            let path = url.trim_start_matches("sqlite://");
            let options = sqlx::sqlite::SqliteConnectOptions::new()
                .filename(path)
                .journal_mode(sqlx::sqlite::SqliteJournalMode::Wal)
                .busy_timeout(std::time::Duration::from_secs(10));
            let pool = SqlitePoolOptions::new()
                .max_connections(POOL_SIZE)
                .connect_with(options)
                .await
                .context("opening the SQLite ledger")?;
            Ledger::Sqlite(pool)
        };
        Ok(ledger)
    }

    /// Appends one entry by `writer` under `token` to `resource`, through its fence. With a
    /// `check`, the entry is written only if the check passes right before the insert, and
    /// records its margin; without one (a deliberate stale write, or a writer that keeps no
    /// deadline of its own), it records none.
    pub async fn append(
        &self,
        resource: &str,
        writer: &str,
        token: FencingToken,
        check: Option<ValidityCheck<'_>>,
    ) -> anyhow::Result<Append> {
        let margin = || check.map(|check| check().map(micros)).transpose();
        let (entry, _) = self.inserts();
        let accepted = fenced_transaction!(self, resource, token, tx => {
            let Ok(margin) = margin() else { return Ok(Append::Stopped) };
            let insert = sqlx::query(entry).bind(resource).bind(writer);
            insert.bind(token.to_store()).bind(margin).execute(&mut *tx).await?;
            tx.commit().await?;
        });
        if accepted.is_some() {
            return Ok(Append::Accepted);
        }
        let (_, rejection) = self.inserts();
        on_each_pool!(self, pool => {
            let rejection = sqlx::query(rejection).bind(resource).bind(writer);
            rejection.bind(token.to_store()).execute(pool).await?;
        });
        Ok(Append::Rejected)
    }

    /// The inserts of an entry (resource, writer, token, margin) and of a rejection (resource,
    /// writer, token), in this store's placeholders.
    fn inserts(&self) -> (&'static str, &'static str) {
        match self {
            Ledger::Postgres(_) => (
                "INSERT INTO baton_test_ledger (resource, writer, token, margin_us) \
                 VALUES ($1, $2, $3, $4)",
                "INSERT INTO baton_test_ledger_rejections (resource, writer, token) \
                 VALUES ($1, $2, $3)",
            ),
            Ledger::Sqlite(_) | Ledger::Mysql(_) => (
                "INSERT INTO baton_test_ledger (resource, writer, token, margin_us) \
                 VALUES (?, ?, ?, ?)",
                "INSERT INTO baton_test_ledger_rejections (resource, writer, token) \
                 VALUES (?, ?, ?)",
            ),
        }
    }

    /// Checks the whole ledger, each resource on its own.
    pub async fn check(&self) -> anyhow::Result<LedgerReport> {
        const ENTRIES: &str =
            "SELECT resource, token, margin_us FROM baton_test_ledger ORDER BY seq";
        const REJECTIONS: &str = "SELECT count(*) FROM baton_test_ledger_rejections";
        let (entries, rejected): (Vec<Entry>, i64) = on_each_pool!(self, pool => (
            sqlx::query_as(ENTRIES).fetch_all(pool).await?,
            sqlx::query_scalar(REJECTIONS).fetch_one(pool).await?,
        ));
        let report = check_entries(&entries, u64::try_from(rejected).unwrap_or(0));
        let LedgerReport { accepted, rejected, stale_accepted, late } = report;
        let found = Fenced { accepted, rejected, stale_accepted, late, duplicates: 0 };
        history::fenced("ledger", found);
        Ok(report)
    }
}

/// A margin in whole microseconds (zero and below: none left).
fn micros(margin: Duration) -> i64 {
    i64::try_from(margin.as_nanos().div_ceil(1000)).unwrap_or(i64::MAX)
}

/// An entry as the checker reads it: resource, token and margin (µs).
type Entry = (String, i64, Option<i64>);

/// Counts entries whose token is below the highest token committed before them on the same
/// resource, and entries written with no margin left before their claim's deadline.
fn check_entries(entries: &[Entry], rejected: u64) -> LedgerReport {
    let mut highest: HashMap<&str, i64> = HashMap::new();
    let (mut stale_accepted, mut late) = (0, 0);
    for (resource, token, margin) in entries {
        let fence = highest.entry(resource.as_str()).or_insert(i64::MIN);
        if token < fence {
            stale_accepted += 1;
        }
        if margin.is_some_and(|margin| margin <= 0) {
            late += 1;
        }
        *fence = (*fence).max(*token);
    }
    LedgerReport { accepted: entries.len() as u64, rejected, stale_accepted, late }
}

#[cfg(test)]
mod tests {
    use super::check_entries;

    fn entries(list: &[(&str, i64, Option<i64>)]) -> Vec<super::Entry> {
        list.iter()
            .map(|(resource, token, margin)| (resource.to_string(), *token, *margin))
            .collect()
    }

    #[test]
    fn the_checker_counts_entries_below_an_earlier_token_and_late_ones() {
        let on_one = |tokens: &[i64]| {
            entries(&tokens.iter().map(|token| ("ledger", *token, Some(1))).collect::<Vec<_>>())
        };
        assert_eq!(check_entries(&on_one(&[1, 1, 2, 3, 3]), 0).stale_accepted, 0);
        assert_eq!(check_entries(&on_one(&[1, 3, 2, 3, 1]), 2).stale_accepted, 2);
        let margins = [("r", 1, Some(5)), ("r", 1, Some(0)), ("r", 2, None), ("r", 2, Some(-3))];
        let report = check_entries(&entries(&margins), 0);
        assert_eq!((report.late, report.stale_accepted), (2, 0));
    }

    #[test]
    fn the_checker_judges_each_resource_on_its_own() {
        let clean = [
            ("slow", 1, None),
            ("tick", 2, None),
            ("tick", 3, None),
            ("slow", 1, None),
            ("slow", 4, None),
        ];
        assert_eq!(check_entries(&entries(&clean), 0).stale_accepted, 0);
        let stale = [("slow", 5, None), ("tick", 2, None), ("slow", 4, None), ("tick", 1, None)];
        assert_eq!(check_entries(&entries(&stale), 0).stale_accepted, 2);
    }
}
