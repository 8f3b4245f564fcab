//! `baton bench dashboard`: how long the dashboard's pages and the API's listings take to
//! render server-side over a long history, next to the floor measured on the same store in the
//! same run: one page of executions read straight from the store.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Body;
use axum::extract::connect_info::MockConnectInfo;
use axum::http::{Request, StatusCode};
use baton::core::job::{ExecutionListParams, NewFire, RecordFiresParams};
use baton::core::{Cursor, JobDefinition, JobName, JobPolicy, JobStore, Schedule};
use baton::{LeaseName, StoreTime};
use baton_server::{LocalNode, ServerConfig};
use clap::Args;
use http_body_util::BodyExt;
use tower::ServiceExt;

use crate::lease::progress;
use crate::report::{Latency, duration};
use crate::scenario::Scenario;

/// Arguments of `baton bench dashboard`.
#[derive(Debug, Args)]
pub struct DashboardBenchArgs {
    /// Backend URL: sqlite://PATH, postgres://USER@HOST:PORT/DB or mysql://USER@HOST:PORT/DB (a fresh database: the run
    /// adds its executions to it).
    #[arg(long, env = "BATON_BACKEND", value_name = "URL")]
    pub backend: String,
    /// Executions recorded before the pages are timed.
    #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub executions: u32,
    /// Jobs the executions belong to.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub jobs: u32,
    /// Requests timed per page.
    #[arg(long, default_value_t = 50, value_parser = clap::value_parser!(u32).range(1..))]
    pub rounds: u32,
}

/// The target: every page renders within this, server-side.
const TARGET: Duration = Duration::from_millis(50);

/// The executions of one page, as the dashboard shows them.
const PAGE: u32 = 50;

/// A node that is ready and holds nothing: the pages only read the stores.
struct Reader;

#[async_trait::async_trait]
impl LocalNode for Reader {
    fn node_id(&self) -> String {
        "bench".into()
    }

    fn is_ready(&self) -> bool {
        true
    }

    async fn step_down(&self, _lease: &LeaseName) -> baton::Result<bool> {
        Ok(false)
    }
}

/// Records the history, then times each page and the floor.
pub(crate) async fn run(args: DashboardBenchArgs) -> anyhow::Result<()> {
    let scenario = Scenario::open(&args.backend).await?;
    let store = scenario.backend.jobs();
    progress(&format!(
        "dashboard: recording {} executions over {} jobs",
        args.executions, args.jobs
    ));
    let jobs = seed(&*store, &scenario.run, &args).await?;
    progress(&format!("dashboard: timing {} requests of each page", args.rounds));
    let peer: SocketAddr = "127.0.0.1:9".parse()?;
    let router =
        baton_server::router(scenario.backend.clone(), Arc::new(Reader), ServerConfig::default())
            .layer(MockConnectInfo(peer));
    let job = &jobs[jobs.len() / 2];
    let pages = [
        "/".to_owned(),
        "/executions".to_owned(),
        format!("/executions?job={job}"),
        "/executions?status=scheduled".to_owned(),
        format!("/jobs/{job}"),
        "/api/v1/jobs".to_owned(),
        format!("/api/v1/executions?limit={PAGE}"),
    ];
    let floor = time_floor(&*store, args.rounds).await?;
    println!(
        "baton bench dashboard: {} executions over {} jobs on {}; {} requests per page\n",
        args.executions,
        args.jobs,
        baton::redact(&args.backend),
        args.rounds
    );
    println!("{:<36} {:>10} {:>10} {:>8}  target", "page", "p50", "p99", "/floor");
    let mut met = true;
    for page in &pages {
        let latency = time_page(&router, page, args.rounds).await?;
        let ratio = latency.p50.as_secs_f64() / floor.p50.as_secs_f64().max(1e-9);
        let ok = latency.p99 < TARGET;
        met &= ok;
        println!(
            "{page:<36} {:>10} {:>10} {ratio:>7.1}x  {} (< {})",
            duration(latency.p50),
            duration(latency.p99),
            if ok { "met" } else { "MISSED" },
            duration(TARGET)
        );
    }
    println!(
        "{:<36} {:>10} {:>10}",
        format!("floor: one page of {PAGE} executions"),
        duration(floor.p50),
        duration(floor.p99)
    );
    println!(
        "\nevery page under {} at p99: {}",
        duration(TARGET),
        if met { "met" } else { "MISSED" }
    );
    Ok(())
}

/// Registers the jobs and records the executions, a thousand fires per statement; answers the
/// job names.
async fn seed(
    store: &dyn JobStore,
    run: &str,
    args: &DashboardBenchArgs,
) -> anyhow::Result<Vec<JobName>> {
    let far = StoreTime::parse("2999-01-01T00:00:00Z")?;
    let mut jobs = Vec::new();
    for index in 0..args.jobs {
        let name = JobName::new(format!("dash-{run}-{index}"))?;
        let definition = JobDefinition {
            name: name.clone(),
            schedule: Schedule::once(far),
            policy: JobPolicy::default(),
        };
        store.job_upsert(definition).await?;
        jobs.push(name);
    }
    let start = store.now().await?.as_millis() - i64::from(args.executions) * 1000;
    let total = i64::from(args.executions);
    for chunk in (0..total).step_by(1000) {
        let fires = (chunk..(chunk + 1000).min(total))
            .map(|i| {
                let at = StoreTime::from_millis(start + i * 1000);
                let job = jobs[i as usize % jobs.len()].clone();
                NewFire { job, scheduled_at: at, due_at: at }
            })
            .collect();
        store.record_fires(RecordFiresParams { fires, missed: Vec::new() }).await?;
    }
    Ok(jobs)
}

/// The floor: the newest page of executions read straight from the store.
async fn time_floor(store: &dyn JobStore, rounds: u32) -> anyhow::Result<Latency> {
    let last = store.execution_list(ExecutionListParams { limit: 1, ..Default::default() }).await?;
    let newest = last.items.first().map_or(0, |e| e.id);
    let mut newest_id = newest;
    // Find the greatest id the way the store pages: keyset, a thousand at a time.
    let mut after = last.next;
    while let Some(cursor) = after {
        let params = ExecutionListParams { after: Some(cursor), limit: 1000, ..Default::default() };
        let page = store.execution_list(params).await?;
        newest_id = page.items.last().map_or(newest_id, |e| e.id);
        after = page.next;
    }
    let from = Cursor::after((newest_id - i64::from(PAGE)).max(0));
    let mut took = Vec::with_capacity(rounds as usize);
    for _ in 0..rounds {
        let began = Instant::now();
        let params = ExecutionListParams { after: Some(from), limit: PAGE, ..Default::default() };
        store.execution_list(params).await?;
        took.push(began.elapsed());
    }
    Latency::of(took).ok_or_else(|| anyhow::anyhow!("no round was timed"))
}

/// Times `rounds` requests of `page`, each answered in full, after three that warm the
/// connections and statement caches.
async fn time_page(router: &Router, page: &str, rounds: u32) -> anyhow::Result<Latency> {
    let mut took = Vec::with_capacity(rounds as usize);
    for round in 0..rounds + 3 {
        let began = Instant::now();
        let request = Request::get(page).body(Body::empty())?;
        let answer = router.clone().oneshot(request).await?;
        let status = answer.status();
        answer.into_body().collect().await?;
        if status != StatusCode::OK {
            anyhow::bail!("{page} answered {status}");
        }
        if round >= 3 {
            took.push(began.elapsed());
        }
    }
    Latency::of(took).ok_or_else(|| anyhow::anyhow!("no round was timed"))
}
