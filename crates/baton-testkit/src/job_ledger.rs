//! A fenced ledger with one fence per resource, for job handlers, and its checker.
//!
//! [`crate::ledger::Ledger`] fences every write on one resource, which suits lease holders that
//! take turns. Jobs need a fence each: a `slow` job's write at the end of a long run must not be
//! refused because a `tick` job wrote meanwhile under a newer token. Each append here is one
//! transaction that checks and bumps the fence of its resource with the writer's token (the
//! fenced sink of invariant I4), then inserts the entry; a refused append is recorded as a
//! rejection in a separate transaction. The checker walks each resource's accepted entries in
//! commit order: an entry whose token is below one accepted before it on the same resource is a
//! stale write that got through, and must never exist.

use std::collections::HashMap;
use std::time::Duration;

use anyhow::Context;
use baton::FencingToken;
use sqlx::postgres::PgPoolOptions;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions};
use sqlx::{Connection, PgPool, SqlitePool};

pub use crate::ledger::{Append, LedgerReport};

const CREATE_POSTGRES: &str = "
CREATE TABLE IF NOT EXISTS baton_test_job_ledger (
    seq BIGSERIAL PRIMARY KEY, resource TEXT NOT NULL, writer TEXT NOT NULL, token BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS baton_test_job_ledger_rejections (
    seq BIGSERIAL PRIMARY KEY, resource TEXT NOT NULL, writer TEXT NOT NULL, token BIGINT NOT NULL
);";

const CREATE_SQLITE: &str = "
CREATE TABLE IF NOT EXISTS baton_test_job_ledger (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, resource TEXT NOT NULL, writer TEXT NOT NULL,
    token INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS baton_test_job_ledger_rejections (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, resource TEXT NOT NULL, writer TEXT NOT NULL,
    token INTEGER NOT NULL
);";

/// A per-resource fenced ledger on a SQL store.
#[derive(Debug, Clone)]
pub enum JobLedger {
    /// On PostgreSQL.
    Postgres(PgPool),
    /// On a SQLite file.
    Sqlite(SqlitePool),
}

impl JobLedger {
    /// Connects to the ledger on the store at `url`, whose baton schema is migrated and whose
    /// ledger tables exist (see [`JobLedger::create`]).
    pub async fn connect(url: &str) -> anyhow::Result<Self> {
        let ledger = if url.starts_with("postgres") {
            let pool = PgPoolOptions::new()
                .max_connections(2)
                .connect(url)
                .await
                .context("opening the PostgreSQL job ledger")?;
            JobLedger::Postgres(pool)
        } else {
            let options = SqliteConnectOptions::new()
                .filename(url.trim_start_matches("sqlite://"))
                .journal_mode(SqliteJournalMode::Wal)
                .busy_timeout(Duration::from_secs(10));
            let pool = SqlitePoolOptions::new()
                .max_connections(2)
                .connect_with(options)
                .await
                .context("opening the SQLite job ledger")?;
            JobLedger::Sqlite(pool)
        };
        Ok(ledger)
    }

    /// Connects and creates the ledger's tables. Run it once before the writers start:
    /// PostgreSQL's `CREATE TABLE IF NOT EXISTS` can fail when two sessions race.
    pub async fn create(url: &str) -> anyhow::Result<Self> {
        let ledger = JobLedger::connect(url).await?;
        match &ledger {
            JobLedger::Postgres(pool) => {
                sqlx::raw_sql(CREATE_POSTGRES).execute(pool).await?;
            }
            JobLedger::Sqlite(pool) => {
                sqlx::raw_sql(CREATE_SQLITE).execute(pool).await?;
            }
        }
        Ok(ledger)
    }

    /// Appends one entry by `writer` under `token` to `resource`, through its fence.
    pub async fn append(
        &self,
        resource: &str,
        writer: &str,
        token: FencingToken,
    ) -> anyhow::Result<Append> {
        const INSERT_PG: &str =
            "INSERT INTO baton_test_job_ledger (resource, writer, token) VALUES ($1, $2, $3)";
        const INSERT_SQLITE: &str =
            "INSERT INTO baton_test_job_ledger (resource, writer, token) VALUES (?, ?, ?)";
        let accepted = match self {
            JobLedger::Postgres(pool) => {
                let mut tx = pool.begin().await?;
                match baton::postgres::check_and_bump(&mut tx, resource, token).await {
                    Ok(()) => {
                        let insert = sqlx::query(INSERT_PG).bind(resource).bind(writer);
                        insert.bind(token.to_store()).execute(&mut *tx).await?;
                        tx.commit().await?;
                        true
                    }
                    Err(baton::postgres::FenceError::Stale { .. }) => false,
                    Err(err) => return Err(err.into()),
                }
            }
            JobLedger::Sqlite(pool) => {
                let mut conn = pool.acquire().await?;
                let mut tx = conn.begin_with("BEGIN IMMEDIATE").await?;
                match baton::sqlite::fence::check_and_bump(&mut tx, resource, token).await {
                    Ok(()) => {
                        let insert = sqlx::query(INSERT_SQLITE).bind(resource).bind(writer);
                        insert.bind(token.to_store()).execute(&mut *tx).await?;
                        tx.commit().await?;
                        true
                    }
                    Err(baton::sqlite::FenceError::Stale { .. }) => false,
                    Err(err) => return Err(err.into()),
                }
            }
        };
        if accepted {
            return Ok(Append::Accepted);
        }
        self.record_rejection(resource, writer, token).await?;
        Ok(Append::Rejected)
    }

    async fn record_rejection(
        &self,
        resource: &str,
        writer: &str,
        token: FencingToken,
    ) -> anyhow::Result<()> {
        match self {
            JobLedger::Postgres(pool) => {
                sqlx::query(
                    "INSERT INTO baton_test_job_ledger_rejections (resource, writer, token) \
                     VALUES ($1, $2, $3)",
                )
                .bind(resource)
                .bind(writer)
                .bind(token.to_store())
                .execute(pool)
                .await?;
            }
            JobLedger::Sqlite(pool) => {
                sqlx::query(
                    "INSERT INTO baton_test_job_ledger_rejections (resource, writer, token) \
                     VALUES (?, ?, ?)",
                )
                .bind(resource)
                .bind(writer)
                .bind(token.to_store())
                .execute(pool)
                .await?;
            }
        }
        Ok(())
    }

    /// Checks the whole ledger, each resource on its own.
    pub async fn check(&self) -> anyhow::Result<LedgerReport> {
        const ENTRIES: &str = "SELECT resource, token FROM baton_test_job_ledger ORDER BY seq";
        const REJECTED: &str = "SELECT count(*) FROM baton_test_job_ledger_rejections";
        let (entries, rejected): (Vec<(String, i64)>, i64) = match self {
            JobLedger::Postgres(pool) => (
                sqlx::query_as(ENTRIES).fetch_all(pool).await?,
                sqlx::query_scalar(REJECTED).fetch_one(pool).await?,
            ),
            JobLedger::Sqlite(pool) => (
                sqlx::query_as(ENTRIES).fetch_all(pool).await?,
                sqlx::query_scalar(REJECTED).fetch_one(pool).await?,
            ),
        };
        Ok(check_order(&entries, u64::try_from(rejected).unwrap_or(0)))
    }
}

/// Counts entries whose token is below the highest token committed before them on the same
/// resource.
fn check_order(entries: &[(String, i64)], rejected: u64) -> LedgerReport {
    let mut highest: HashMap<&str, i64> = HashMap::new();
    let mut stale_accepted = 0;
    for (resource, token) in entries {
        let fence = highest.entry(resource.as_str()).or_insert(i64::MIN);
        if *token < *fence {
            stale_accepted += 1;
        }
        *fence = (*fence).max(*token);
    }
    LedgerReport { accepted: entries.len() as u64, rejected, stale_accepted, late: 0 }
}

#[cfg(test)]
mod tests {
    use super::check_order;

    #[test]
    fn the_checker_judges_each_resource_on_its_own() {
        let entries = |list: &[(&str, i64)]| -> Vec<(String, i64)> {
            list.iter().map(|(resource, token)| (resource.to_string(), *token)).collect()
        };
        let clean = entries(&[("slow", 1), ("tick", 2), ("tick", 3), ("slow", 1), ("slow", 4)]);
        assert_eq!(check_order(&clean, 0).stale_accepted, 0);
        let stale = entries(&[("slow", 5), ("tick", 2), ("slow", 4), ("tick", 1)]);
        assert_eq!(check_order(&stale, 0).stale_accepted, 2);
    }
}
