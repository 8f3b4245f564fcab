//! A stale writer rejected by the fenced sink.
//!
//! Two workers share a SQLite file. Worker A acquires the lease and writes; its lease is then
//! taken from it (an operator's forced release stands in for a pause past the TTL); worker B
//! acquires it with a higher token and writes. When A, unaware, writes again with its old token,
//! the fence rejects the whole transaction.
//!
//! Run with `cargo run -p baton --example fenced_sink`.

use baton::core::ForceReleaseParams;
use baton::sqlite::fence::{FenceError, check_and_bump};
use baton::{Elector, ElectorConfig, FencingToken, HolderId, LeaseName};
use sqlx::{Connection, SqliteConnection};

/// Appends a line to the ledger, fenced by `token`, in one transaction.
async fn write(
    conn: &mut SqliteConnection,
    token: FencingToken,
    line: &str,
) -> anyhow::Result<bool> {
    let mut tx = conn.begin_with("BEGIN IMMEDIATE").await?;
    match check_and_bump(&mut tx, "ledger", token).await {
        Ok(()) => {
            sqlx::query("INSERT INTO ledger (line) VALUES (?)")
                .bind(line)
                .execute(&mut *tx)
                .await?;
            tx.commit().await?;
            Ok(true)
        }
        Err(FenceError::Stale { presented, current, .. }) => {
            println!("  rejected: token {presented} is older than the fence at {current}");
            Ok(false)
        }
        Err(err) => Err(err.into()),
    }
}

/// Plays the scene in a SQLite file in `dir`; answers the ledger's lines.
pub async fn run(dir: &std::path::Path) -> anyhow::Result<Vec<String>> {
    let path = dir.join("example.db");
    let backend = baton::connect(&format!("sqlite://{}", path.display())).await?;
    backend.migrate().await?;
    let mut conn = SqliteConnection::connect(&format!("sqlite://{}", path.display())).await?;
    sqlx::query("CREATE TABLE ledger (line TEXT NOT NULL)").execute(&mut conn).await?;

    let lease: LeaseName = "ledger-writer".parse()?;
    let a = Elector::new(backend.leases(), ElectorConfig::new(HolderId::new("worker-a")?))?;
    let b = Elector::new(backend.leases(), ElectorConfig::new(HolderId::new("worker-b")?))?;

    let guard_a = a.acquire(&lease).await?;
    let token_a = guard_a.token();
    println!("A holds the lease with token {token_a}");
    println!("  A writes: accepted = {}", write(&mut conn, token_a, "A, first").await?);

    backend.leases().force_release(ForceReleaseParams { name: lease.clone() }).await?;
    let guard_b = b.acquire(&lease).await?;
    println!("B holds the lease with token {}", guard_b.token());
    println!("  B writes: accepted = {}", write(&mut conn, guard_b.token(), "B").await?);

    println!("A, unaware, writes again with token {token_a}");
    let accepted = write(&mut conn, token_a, "A, stale").await?;
    anyhow::ensure!(!accepted, "the fence must reject a stale writer");

    let lines: Vec<String> =
        sqlx::query_scalar("SELECT line FROM ledger").fetch_all(&mut conn).await?;
    drop(guard_a);
    guard_b.release().await?;
    Ok(lines)
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    println!("ledger: {:?}", run(dir.path()).await?);
    Ok(())
}
