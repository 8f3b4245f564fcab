//! A scheduler worker cut from PostgreSQL by a blackhole (the TCP proxy drops everything and
//! keeps the connections open, so no call fails: every call hangs) stops its handler before
//! the execution can be abandoned and retried on another node: no two attempts of one
//! execution overlap (I3 for executions).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use baton::core::job::{ExecutionListParams, TriggerParams};
use baton::core::schedule::RetryPolicy;
use baton::core::{ExecutionStatus, Trigger};
use baton::scheduler::{Job, JobContext, Scheduler, SchedulerConfig};
use baton::{ElectorConfig, HolderId};
use baton_testkit::proxy::{FaultProxy, Mode};
use baton_testkit::servers::PostgresServer;
use tokio::sync::mpsc;
use tokio::time::Instant;

/// How long the test waits for any one signal.
const PATIENCE: Duration = Duration::from_secs(60);

/// When an attempt started and, once it did, when its handler stopped acting.
#[derive(Debug, Clone, Copy)]
struct Span {
    attempt: u32,
    started: Instant,
    ended: Option<Instant>,
}

/// A job whose first attempt runs until told to stop, and whose retry returns at once; every
/// attempt's span goes to `spans`.
fn endless(spans: Arc<Mutex<Vec<Span>>>, events: mpsc::UnboundedSender<u32>) -> Job {
    Job::every("endless", Duration::from_secs(3600))
        .retry(
            RetryPolicy::default()
                .with_max_attempts(2)
                .with_backoff(Duration::from_millis(10), Duration::from_millis(10)),
        )
        .handler(move |ctx: JobContext| {
            let (spans, events) = (spans.clone(), events.clone());
            async move {
                let attempt = ctx.attempt();
                let index = {
                    let mut spans = spans.lock().unwrap();
                    spans.push(Span { attempt, started: Instant::now(), ended: None });
                    spans.len() - 1
                };
                let _ = events.send(attempt);
                if attempt == 1 {
                    ctx.cancelled().await;
                }
                spans.lock().unwrap()[index].ended = Some(Instant::now());
                Ok::<(), String>(())
            }
        })
        .expect("a valid job")
}

async fn node(name: &str, url: &str, job: Job) -> Scheduler {
    let backend = baton::connect(url).await.expect("connect");
    let holder = HolderId::generate(name, 1);
    let mut config =
        SchedulerConfig::new(ElectorConfig::new(holder).with_ttl(Duration::from_secs(2)));
    config.heartbeat_interval = Duration::from_millis(200);
    config.abandon_after = Duration::from_secs(2);
    config.poll_interval = Duration::from_millis(200);
    config.shutdown_grace = Duration::from_millis(200);
    Scheduler::builder(backend.leases(), backend.jobs())
        .config(config)
        .job(job)
        .start()
        .await
        .expect("the node starts")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_worker_behind_a_blackhole_stops_before_its_execution_is_retried_elsewhere() {
    let server = PostgresServer::start();
    baton::connect(&server.url()).await.unwrap().migrate().await.unwrap();
    let proxy = FaultProxy::start(([127, 0, 0, 1], server.port()).into()).await.unwrap();
    let proxied = format!("postgres://postgres@{}/postgres", proxy.addr());
    let spans = Arc::new(Mutex::new(Vec::new()));
    let (events, mut started) = mpsc::unbounded_channel();

    // Node a, behind the proxy, is alone at first: it leads and claims the first attempt.
    let a = node("a", &proxied, endless(spans.clone(), events.clone())).await;
    let store = baton::connect(&server.url()).await.unwrap().jobs();
    let trigger = TriggerParams {
        job: "endless".parse().unwrap(),
        fire_key: None,
        scheduled_at: None,
        trigger: Trigger::Manual,
        claim_for: None,
    };
    store.trigger(trigger).await.unwrap();
    let first = tokio::time::timeout(PATIENCE, started.recv()).await.expect("a starts it");
    assert_eq!(first, Some(1));
    let b = node("b", &server.url(), endless(spans.clone(), events)).await;

    proxy.set_mode(Mode::Blackhole);
    let retried = tokio::time::timeout(PATIENCE, started.recv()).await.expect("b retries it");
    assert_eq!(retried, Some(2));

    let spans = spans.lock().unwrap().clone();
    let (first, retry) = (spans[0], spans[1]);
    assert_eq!((first.attempt, retry.attempt), (1, 2));
    let first_ended = first.ended.expect("the first attempt stopped before the retry started");
    assert!(first_ended < retry.started, "the attempts overlap: {spans:?}");

    proxy.set_mode(Mode::Pass);
    let params = ExecutionListParams { limit: 10, ..Default::default() };
    let executions = store.execution_list(params).await.unwrap().items;
    assert_eq!(executions[0].status, ExecutionStatus::Abandoned, "{executions:?}");
    b.shutdown().await;
    a.shutdown().await;
    proxy.shutdown().await;
}
