//! One node of the demonstration, run as a separate process (`baton demo --node NAME`): a
//! scheduler with the demo's jobs, whose handlers write through the fenced sink. It reports on
//! stdout, one event per line: `LEADING <token>`, `WROTE <job> <fire> <attempt> <token>` and
//! `REJECTED <job> <fire> <token> <fence>`.

use std::io::Write;
use std::sync::Arc;
use std::time::Duration;

use baton::scheduler::{Job, JobContext, Scheduler, SchedulerConfig};
use baton::sqlite::fence::{FenceError, check_and_bump};
use baton::{ElectorConfig, HolderId, Leadership};
use sqlx::{Connection, SqliteConnection};
use tokio::sync::Mutex;

use super::timing;

fn say(line: &str) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

/// Runs the node until its standard input closes or it is killed.
pub async fn run(name: &str, url: &str) -> anyhow::Result<()> {
    let backend = baton::connect(url).await?;
    let path = url.trim_start_matches("sqlite://");
    let ledger =
        Arc::new(Mutex::new(SqliteConnection::connect(&format!("sqlite://{path}")).await?));
    let tick = Job::every("tick", Duration::from_secs(1))
        .handler(writer(ledger.clone(), Duration::ZERO))?;
    let report = Job::cron("report", "*/5 * * * * *")
        .handler(writer(ledger, Duration::from_millis(1500)))?;
    let holder = HolderId::generate(name, std::process::id());
    let mut config = SchedulerConfig::new(ElectorConfig::new(holder).with_ttl(timing::TTL));
    config.heartbeat_interval = timing::HEARTBEAT;
    config.abandon_after = timing::ABANDON_AFTER;
    config.poll_interval = Duration::from_secs(1);
    let scheduler = Scheduler::builder(backend.leases(), backend.jobs())
        .config(config)
        .job(tick)
        .job(report)
        .start()
        .await?;
    let mut leadership = scheduler.leadership();
    let stdin_closed = async {
        let mut lines = tokio::io::BufReader::new(tokio::io::stdin());
        let mut line = String::new();
        use tokio::io::AsyncBufReadExt;
        while lines.read_line(&mut line).await.unwrap_or(0) > 0 {
            line.clear();
        }
    };
    tokio::pin!(stdin_closed);
    loop {
        tokio::select! {
            () = &mut stdin_closed => break,
            changed = leadership.changed() => {
                if changed.is_err() { break }
                if let Leadership::Leader(term) = &*leadership.borrow_and_update() {
                    say(&format!("LEADING {}", term.token()));
                }
            }
        }
    }
    scheduler.shutdown().await;
    Ok(())
}

/// A handler that works for `work`, then appends a line to the demo ledger through the fence
/// of its job, with the attempt's token.
fn writer(
    ledger: Arc<Mutex<SqliteConnection>>,
    work: Duration,
) -> impl Fn(
    JobContext,
) -> std::pin::Pin<Box<dyn std::future::Future<Output = anyhow::Result<()>> + Send>>
+ Send
+ Sync
+ 'static {
    move |ctx: JobContext| {
        let ledger = ledger.clone();
        Box::pin(async move {
            tokio::select! {
                () = tokio::time::sleep(work) => {}
                () = ctx.cancelled() => anyhow::bail!("cancelled"),
            }
            let mut conn = ledger.lock().await;
            let mut tx = conn.begin_with("BEGIN IMMEDIATE").await?;
            let (job, fire, token) = (ctx.job().to_string(), ctx.scheduled_at(), ctx.token());
            match check_and_bump(&mut tx, &format!("demo:{job}"), token).await {
                Ok(()) => {
                    sqlx::query("INSERT INTO demo_ledger (job, fire, token) VALUES (?1, ?2, ?3)")
                        .bind(&job)
                        .bind(fire.to_string())
                        .bind(token.to_string())
                        .execute(&mut *tx)
                        .await?;
                    tx.commit().await?;
                    say(&format!("WROTE {job} {fire} {} {token}", ctx.attempt()));
                    Ok(())
                }
                Err(FenceError::Stale { current, .. }) => {
                    say(&format!("REJECTED {job} {fire} {token} {current}"));
                    anyhow::bail!("stale token {token}: the fence is at {current}")
                }
                Err(err) => Err(err.into()),
            }
        })
    }
}
