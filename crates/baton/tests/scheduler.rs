//! The scheduler runtime over the in-memory stores: fires recorded once across nodes, retries,
//! timeouts, and a leader handing over on shutdown.

mod common;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use baton::core::job::{ExecutionListParams, audit};
use baton::core::layer::Layered;
use baton::core::memory::{MemoryJobStore, MemoryLeaseStore};
use baton::core::schedule::RetryPolicy;
use baton::core::{Execution, ExecutionStatus, JobStore, LeaseStore, Trigger};
use baton::scheduler::{Job, JobContext, Scheduler, SchedulerConfig};
use baton::{ElectorConfig, HolderId, StoreTime};

/// Stores shared by the nodes of one test, as one database would be.
struct Cluster {
    leases: Arc<dyn LeaseStore>,
    jobs: Arc<dyn JobStore>,
}

impl Cluster {
    fn new() -> Self {
        Cluster {
            leases: Arc::new(MemoryLeaseStore::default()),
            jobs: Arc::new(MemoryJobStore::new()),
        }
    }

    async fn node(&self, name: &str, jobs: Vec<Job>) -> Scheduler {
        let holder = HolderId::generate(name, fastrand::u32(..));
        let mut config =
            SchedulerConfig::new(ElectorConfig::new(holder).with_ttl(Duration::from_secs(2)));
        config.heartbeat_interval = Duration::from_millis(200);
        config.abandon_after = Duration::from_secs(1);
        config.poll_interval = Duration::from_millis(500);
        config.shutdown_grace = Duration::from_secs(2);
        let mut builder = Scheduler::builder(self.leases.clone(), self.jobs.clone()).config(config);
        for job in jobs {
            builder = builder.job(job);
        }
        builder.start().await.expect("scheduler starts")
    }

    /// Every execution of `job`, oldest first.
    async fn executions(&self, job: &str) -> Vec<Execution> {
        let params = ExecutionListParams {
            job: Some(job.parse().unwrap()),
            limit: 1000,
            ..Default::default()
        };
        self.jobs.execution_list(params).await.expect("list").items
    }

    /// Waits until `done` holds for the job's executions (checked as they change).
    async fn wait_for(
        &self,
        job: &str,
        what: &str,
        done: impl Fn(&[Execution]) -> bool,
    ) -> Vec<Execution> {
        let waited = tokio::time::timeout(Duration::from_secs(20), async {
            loop {
                let executions = self.executions(job).await;
                if done(&executions) {
                    return executions;
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        });
        waited.await.unwrap_or_else(|_| panic!("timed out waiting for {what}"))
    }
}

fn count(executions: &[Execution], status: ExecutionStatus) -> usize {
    executions.iter().filter(|e| e.status == status).count()
}

/// A handler counting its runs per fire.
fn counting(
    runs: Arc<Mutex<HashMap<StoreTime, u32>>>,
) -> impl Fn(JobContext) -> std::future::Ready<Result<(), String>> {
    move |ctx: JobContext| {
        *runs.lock().unwrap().entry(ctx.scheduled_at()).or_default() += 1;
        std::future::ready(Ok(()))
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn three_nodes_run_each_fire_once_across_a_leader_handover() {
    let cluster = Cluster::new();
    let runs = Arc::new(Mutex::new(HashMap::new()));
    let job =
        || Job::every("tick", Duration::from_secs(1)).handler(counting(runs.clone())).unwrap();
    let mut nodes = Vec::new();
    for name in ["a", "b", "c"] {
        nodes.push(cluster.node(name, vec![job()]).await);
    }
    cluster.wait_for("tick", "three fires", |e| count(e, ExecutionStatus::Succeeded) >= 3).await;
    // The leader (whichever node it is) shuts down; the others continue.
    let leader = cluster.leases.get(&"baton-scheduler".parse().unwrap()).await.unwrap().unwrap();
    let holder = leader.holder.expect("a leader holds the lease");
    let index = nodes.iter().position(|node| *node.node() == holder).expect("the leader is a node");
    nodes.remove(index).shutdown().await;
    let before = count(&cluster.executions("tick").await, ExecutionStatus::Succeeded);
    cluster
        .wait_for("tick", "three more fires", |e| {
            count(e, ExecutionStatus::Succeeded) >= before + 3
        })
        .await;
    for node in nodes {
        node.shutdown().await;
    }
    let executions = cluster.executions("tick").await;
    for (at, n) in runs.lock().unwrap().iter() {
        assert_eq!(*n, 1, "the fire at {at} ran {n} times");
    }
    let first = executions.first().unwrap().scheduled_at;
    let last = executions.iter().map(|e| e.scheduled_at).max().unwrap();
    let job = cluster.jobs.job_get(&"tick".parse().unwrap()).await.unwrap().unwrap();
    let report = audit(&[job], &executions, &[], first, last, Duration::from_secs(5));
    assert!(report.is_clean(), "{report:?}");
    assert!(report.expected >= 5, "{report:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_failed_attempt_is_retried_with_a_greater_token_and_each_keeps_its_output() {
    let cluster = Cluster::new();
    let failing = Job::every("flaky", Duration::from_secs(3600))
        .retry(
            RetryPolicy::default()
                .with_max_attempts(2)
                .with_backoff(Duration::from_millis(100), Duration::from_secs(1)),
        )
        .handler(|ctx: JobContext| async move {
            ctx.set_output(format!("attempt {} ran", ctx.attempt()));
            match ctx.attempt() {
                // The record keeps the error's chain of causes.
                1 => Err(anyhow::anyhow!("connection refused").context("first attempt fails")),
                _ => Ok(()),
            }
        })
        .unwrap();
    let node = cluster.node("a", vec![failing]).await;
    let name = "flaky".parse().unwrap();
    cluster
        .jobs
        .trigger(baton::core::job::TriggerParams {
            job: name,
            fire_key: None,
            scheduled_at: None,
            trigger: Trigger::Manual,
            claim_for: None,
        })
        .await
        .unwrap();
    let executions = cluster
        .wait_for("flaky", "the retry to succeed", |e| count(e, ExecutionStatus::Succeeded) == 1)
        .await;
    node.shutdown().await;
    assert_eq!(executions.len(), 2, "{executions:?}");
    let (first, retry) = (&executions[0], &executions[1]);
    assert_eq!(first.status, ExecutionStatus::Failed);
    assert_eq!(first.detail.as_deref(), Some("first attempt fails: connection refused"));
    assert_eq!((retry.attempt, retry.trigger), (2, Trigger::Retry));
    assert_eq!(retry.fire_key, first.fire_key);
    for (execution, output) in [(first, "attempt 1 ran"), (retry, "attempt 2 ran")] {
        let kept = cluster.jobs.execution_output(execution.id).await.unwrap();
        assert_eq!(kept.as_deref(), Some(output), "each attempt keeps the output it set");
    }
    assert!(retry.token > first.token, "{:?} then {:?}", first.token, retry.token);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_handler_past_its_timeout_is_cancelled_and_timed_out() {
    let cluster = Cluster::new();
    let slow = Job::every("slow", Duration::from_secs(3600))
        .timeout(Duration::from_secs(1))
        .handler(|ctx: JobContext| async move {
            ctx.cancelled().await;
            Ok::<(), String>(())
        })
        .unwrap();
    let node = cluster.node("a", vec![slow]).await;
    cluster
        .jobs
        .trigger(baton::core::job::TriggerParams {
            job: "slow".parse().unwrap(),
            fire_key: None,
            scheduled_at: None,
            trigger: Trigger::Manual,
            claim_for: None,
        })
        .await
        .unwrap();
    let executions =
        cluster.wait_for("slow", "the timeout", |e| count(e, ExecutionStatus::TimedOut) == 1).await;
    node.shutdown().await;
    assert_eq!(executions.len(), 1, "no retry by default: {executions:?}");
    assert!(executions[0].detail.as_deref().unwrap_or_default().contains("timed out"));
}

/// Waits until `node` leads, and answers the term's token.
async fn leads(node: &Scheduler) -> baton::FencingToken {
    let mut leadership = node.leadership();
    loop {
        if let Some(token) = leadership.borrow_and_update().token() {
            return token;
        }
        leadership.changed().await.expect("the node runs");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_leader_that_steps_down_hands_the_scheduler_to_another_node() {
    let cluster = Cluster::new();
    let a = cluster.node("a", Vec::new()).await;
    let first = leads(&a).await;
    let b = cluster.node("b", Vec::new()).await;
    assert!(!b.step_down().await, "a follower has nothing to give up");
    assert!(a.step_down().await, "the leader steps down");
    let second = leads(&b).await;
    assert!(second > first);
    assert_eq!(a.leadership().borrow().token(), None);
    a.shutdown().await;
    b.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_dropped_scheduler_stops_and_another_node_takes_over() {
    let cluster = Cluster::new();
    let a = cluster.node("a", Vec::new()).await;
    let first = leads(&a).await;
    let b = cluster.node("b", Vec::new()).await;
    drop(a);
    let second = tokio::time::timeout(Duration::from_secs(20), leads(&b))
        .await
        .expect("a dropped scheduler stops leading");
    assert!(second > first);
    b.shutdown().await;
    b.shutdown().await;
    assert_eq!(b.leadership().borrow().token(), None, "shut down, and again: no longer leading");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_scheduler_refused_the_leadership_for_good_closes_its_leadership_channel() {
    let cluster = Cluster::new();
    let leases: Arc<dyn LeaseStore> =
        Arc::new(Layered::new(cluster.leases.clone(), Arc::new(common::Refusing)));
    let config = SchedulerConfig::new(ElectorConfig::new(HolderId::new("refused").unwrap()));
    let node =
        Scheduler::builder(leases, cluster.jobs.clone()).config(config).start().await.unwrap();
    let mut leadership = node.leadership();
    let closed = tokio::time::timeout(Duration::from_secs(20), leadership.changed()).await;
    assert!(closed.expect("the channel changes").is_err(), "the leadership channel closed");
    node.shutdown().await;
}

/// Records a manual trigger of `job`.
async fn trigger(cluster: &Cluster, job: &str) {
    let params = baton::core::job::TriggerParams {
        job: job.parse().unwrap(),
        fire_key: None,
        scheduled_at: None,
        trigger: Trigger::Manual,
        claim_for: None,
    };
    cluster.jobs.trigger(params).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_panicking_handler_fails_its_execution_and_frees_the_job() {
    let cluster = Cluster::new();
    let runs = Arc::new(std::sync::atomic::AtomicU32::new(0));
    let counted = runs.clone();
    // Overlap is `forbid` by default: an execution left running would skip every later fire.
    let job = Job::every("boom", Duration::from_secs(3600))
        .handler(move |_ctx: JobContext| {
            let run = counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            async move {
                assert!(run > 0, "the first run panics");
                Ok::<(), String>(())
            }
        })
        .unwrap();
    let node = cluster.node("a", vec![job]).await;
    trigger(&cluster, "boom").await;
    let executions = cluster
        .wait_for("boom", "the panic to fail", |e| count(e, ExecutionStatus::Failed) == 1)
        .await;
    let detail = executions[0].detail.clone().unwrap_or_default();
    assert!(detail.contains("panicked") && detail.contains("the first run panics"), "{detail}");
    trigger(&cluster, "boom").await;
    cluster.wait_for("boom", "the next run", |e| count(e, ExecutionStatus::Succeeded) == 1).await;
    node.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn a_stalled_worker_sees_the_loss_before_its_next_write_and_its_handler_is_cancelled() {
    let cluster = Cluster::new();
    let (contexts, mut started) = tokio::sync::mpsc::unbounded_channel();
    let job = Job::every("stalls", Duration::from_secs(3600))
        .handler(move |ctx: JobContext| {
            let _ = contexts.send(ctx.clone());
            async move {
                ctx.cancelled().await;
                Ok::<(), String>(())
            }
        })
        .unwrap();
    let node = cluster.node("a", vec![job]).await;
    trigger(&cluster, "stalls").await;
    let ctx = started.recv().await.expect("the handler starts");
    ctx.ensure_valid().unwrap();
    // Moving the paused clock without letting any task run is what a SIGSTOP looks like:
    // past the stall threshold (400 ms here), short of the claim's deadline (600 ms).
    tokio::time::advance(Duration::from_millis(500)).await;
    let err = ctx.ensure_valid().unwrap_err();
    assert_eq!(err.kind(), baton::ErrorKind::LeaseLost);
    assert!(err.to_string().contains("stalled"), "{err}");
    // The watchdog then cancels the handler's work.
    ctx.cancelled().await;
    node.shutdown().await;
}
