//! A cluster-wide cron job: three replicas of a service share one store and register the same
//! job, every second; each fire runs once, on one of them.
//!
//! Run with `cargo run -p baton --example cron_job` (an embedded SQLite file in a temporary
//! directory), or on PostgreSQL with
//! `cargo run -p baton --features postgres --example cron_job -- postgres://USER@HOST/DB`.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use baton::scheduler::{Job, JobContext, Scheduler, SchedulerConfig};
use baton::{ElectorConfig, HolderId, StoreTime};

/// The replicas that ran each fire, by its scheduled instant.
pub type Runs = BTreeMap<StoreTime, Vec<&'static str>>;

/// Runs three replicas on the store at `url` until `fires` fires have run; answers who ran each.
pub async fn run(url: &str, fires: usize) -> anyhow::Result<Runs> {
    let backend = baton::connect(url).await?;
    backend.migrate().await?;
    let runs = Arc::new(Mutex::new(Runs::new()));
    let (ran, mut counted) = tokio::sync::watch::channel(0);
    let mut replicas = Vec::new();
    for replica in ["replica-a", "replica-b", "replica-c"] {
        let (runs, ran) = (runs.clone(), ran.clone());
        let report =
            Job::every("report", Duration::from_secs(1)).handler(move |ctx: JobContext| {
                let (runs, ran) = (runs.clone(), ran.clone());
                async move {
                    // A real job passes ctx.token() to every write it makes (see fenced_sink).
                    let mut runs = runs.lock().expect("not poisoned");
                    runs.entry(ctx.scheduled_at()).or_default().push(replica);
                    ran.send_replace(runs.len());
                    Ok::<(), std::io::Error>(())
                }
            })?;
        let node = HolderId::new(format!("{replica}-{}", std::process::id()))?;
        let scheduler = Scheduler::builder(backend.leases(), backend.jobs())
            .config(SchedulerConfig::new(ElectorConfig::new(node)))
            .job(report)
            .start()
            .await?;
        replicas.push(scheduler);
    }
    counted.wait_for(|count| *count >= fires).await?;
    for replica in replicas {
        replica.shutdown().await;
    }
    let runs = runs.lock().expect("not poisoned").clone();
    Ok(runs)
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let url = std::env::args()
        .nth(1)
        .unwrap_or_else(|| format!("sqlite://{}", dir.path().join("baton.db").display()));
    for (at, replicas) in run(&url, 5).await? {
        println!("fire of {at}: ran on {}", replicas.join(", "));
    }
    Ok(())
}
