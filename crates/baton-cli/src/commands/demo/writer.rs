//! The demo's commands, which the agents run: `baton demo write` for the scheduled jobs and
//! `baton demo partition` for the partitioned one. Each writes to the demo ledger through a
//! fence of its own fire, with the token its agent passed, so a late write of an attempt that
//! was replaced is refused.

use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use baton::FencingToken;
use baton::sqlite::fence::{FenceError, check_and_bump};
use sqlx::sqlite::SqliteConnectOptions;
use sqlx::{Connection, SqliteConnection};

/// Steps of work a partition does, checkpointing after each.
const PARTITION_STEPS: u64 = 8;

fn var(name: &str) -> anyhow::Result<String> {
    std::env::var(name).with_context(|| format!("{name} is not set: run by a baton agent"))
}

/// Fails once the agent that started this command is gone (this process was handed to
/// another parent): a command must not outlive its agent's claim on the work.
fn ensure_agent_alive(agent: nix::unistd::Pid) -> anyhow::Result<()> {
    if nix::unistd::getppid() != agent {
        anyhow::bail!("the agent that started this command is gone: stopping without writing");
    }
    Ok(())
}

/// A scheduled job's command: works for `work`, then writes its fire to the ledger.
pub async fn write(ledger: &Path, work: Duration) -> anyhow::Result<ExitCode> {
    let agent = nix::unistd::getppid();
    let (job, fire) = (var("BATON_JOB")?, var("BATON_FIRE_TIME")?);
    tokio::time::sleep(work).await;
    ensure_agent_alive(agent)?;
    fenced_write(ledger, &job, &fire).await
}

/// A partition's command: resumes from its checkpoint, works step by step saving a
/// checkpoint after each, then writes its completion to the ledger.
pub async fn partition(ledger: &Path, step: Duration) -> anyhow::Result<ExitCode> {
    let agent = nix::unistd::getppid();
    let (batch, key) = (var("BATON_BATCH_ID")?, var("BATON_PARTITION_KEY")?);
    let done: u64 = std::env::var("BATON_CHECKPOINT")
        .ok()
        .and_then(|state| state.trim_start_matches("{\"done\":").trim_end_matches('}').parse().ok())
        .unwrap_or(0);
    for next in done + 1..=PARTITION_STEPS {
        tokio::time::sleep(step).await;
        ensure_agent_alive(agent)?;
        println!("::baton checkpoint {{\"done\":{next}}} {next}");
    }
    ensure_agent_alive(agent)?;
    fenced_write(ledger, &var("BATON_JOB")?, &format!("batch {batch} partition {key}")).await
}

/// Appends `(job, fire)` to the ledger if the fence of that fire accepts this attempt's
/// token; otherwise records the refusal and exits 3.
async fn fenced_write(ledger: &Path, job: &str, fire: &str) -> anyhow::Result<ExitCode> {
    let token: FencingToken = var("BATON_FENCING_TOKEN")?.parse()?;
    let options =
        SqliteConnectOptions::new().filename(ledger).busy_timeout(Duration::from_secs(10));
    let mut conn = SqliteConnection::connect_with(&options).await?;
    let mut tx = conn.begin_with("BEGIN IMMEDIATE").await?;
    match check_and_bump(&mut tx, &format!("demo:{job}:{fire}"), token).await {
        Ok(()) => {
            sqlx::query(
                "INSERT INTO demo_ledger (job, fire, token) VALUES (?1, ?2, ?3) \
                 ON CONFLICT (job, fire) DO UPDATE SET token = ?3, writes = writes + 1",
            )
            .bind(job)
            .bind(fire)
            .bind(token.to_string())
            .execute(&mut *tx)
            .await?;
            tx.commit().await?;
            println!("{job} {fire}: written with token {token}");
            Ok(ExitCode::SUCCESS)
        }
        Err(FenceError::Stale { current, .. }) => {
            tx.rollback().await?;
            sqlx::query(
                "INSERT INTO demo_rejected (job, fire, token, fence) VALUES (?1, ?2, ?3, ?4)",
            )
            .bind(job)
            .bind(fire)
            .bind(token.to_string())
            .bind(current.to_string())
            .execute(&mut conn)
            .await?;
            println!("{job} {fire}: token {token} REJECTED, the fence is at {current}");
            Ok(ExitCode::from(3))
        }
        Err(err) => Err(err.into()),
    }
}
