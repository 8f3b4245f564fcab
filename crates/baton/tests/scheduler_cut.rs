//! A worker whose heartbeats stop getting through stops its handler before the execution can
//! be abandoned and retried elsewhere (I3 for executions).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use async_trait::async_trait;
use baton::core::job::*;
use baton::core::memory::{MemoryJobStore, MemoryLeaseStore};
use baton::core::{Error, ErrorKind, Execution, Job as JobRecord, JobDefinition, JobName};
use baton::core::{JobStore, Page, Result, StoreTime, Trigger};
use baton::scheduler::{Job, JobContext, Scheduler, SchedulerConfig};
use baton::{ElectorConfig, HolderId};
use tokio::sync::oneshot;

/// The in-memory store, whose heartbeats and completions fail while `cut` is set.
struct Cuttable {
    inner: MemoryJobStore,
    cut: AtomicBool,
}

#[async_trait]
impl JobStore for Cuttable {
    async fn job_upsert(&self, definition: JobDefinition) -> Result<JobRecord> {
        self.inner.job_upsert(definition).await
    }
    async fn job_get(&self, name: &JobName) -> Result<Option<JobRecord>> {
        self.inner.job_get(name).await
    }
    async fn job_list(&self, params: JobListParams) -> Result<Page<JobRecord>> {
        self.inner.job_list(params).await
    }
    async fn job_set_paused(&self, name: &JobName, paused: bool) -> Result<JobRecord> {
        self.inner.job_set_paused(name, paused).await
    }
    async fn job_skip_through(&self, name: &JobName, through: StoreTime) -> Result<JobRecord> {
        self.inner.job_skip_through(name, through).await
    }
    async fn job_last_fires(&self) -> Result<Vec<(JobName, StoreTime)>> {
        self.inner.job_last_fires().await
    }
    async fn record_fires(&self, params: RecordFiresParams) -> Result<FiresRecorded> {
        self.inner.record_fires(params).await
    }
    async fn trigger(&self, params: TriggerParams) -> Result<TriggerOutcome> {
        self.inner.trigger(params).await
    }
    async fn claim(&self, params: ClaimParams) -> Result<Claimed> {
        self.inner.claim(params).await
    }
    async fn heartbeat(&self, params: HeartbeatParams) -> Result<HeartbeatOutcome> {
        if self.cut.load(Ordering::SeqCst) {
            return Err(Error::new(ErrorKind::Unavailable, "cut from the store"));
        }
        self.inner.heartbeat(params).await
    }
    async fn complete(&self, params: CompleteParams) -> Result<Completed> {
        if self.cut.load(Ordering::SeqCst) {
            return Err(Error::new(ErrorKind::Unavailable, "cut from the store"));
        }
        self.inner.complete(params).await
    }
    async fn request_cancel(&self, id: i64) -> Result<bool> {
        self.inner.request_cancel(id).await
    }
    async fn rescue(&self, params: RescueParams) -> Result<Rescued> {
        self.inner.rescue(params).await
    }
    async fn execution_get(&self, id: i64) -> Result<Option<Execution>> {
        self.inner.execution_get(id).await
    }
    async fn execution_output(&self, id: i64) -> Result<Option<String>> {
        self.inner.execution_output(id).await
    }
    async fn execution_list(&self, params: ExecutionListParams) -> Result<Page<Execution>> {
        self.inner.execution_list(params).await
    }
    async fn prune(&self, params: PruneParams) -> Result<u64> {
        self.inner.prune(params).await
    }
    async fn subscribe_due(&self) -> Result<Option<Box<dyn DueChanges>>> {
        self.inner.subscribe_due().await
    }
    async fn now(&self) -> Result<StoreTime> {
        self.inner.now().await
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_cut_from_the_store_stops_its_handler_before_the_execution_is_abandoned() {
    let store = Arc::new(Cuttable { inner: MemoryJobStore::new(), cut: AtomicBool::new(false) });
    let (started_tx, started) = oneshot::channel::<()>();
    let (stopped_tx, stopped) = oneshot::channel::<()>();
    let signals = Arc::new(std::sync::Mutex::new((Some(started_tx), Some(stopped_tx))));
    let endless = Job::every("endless", Duration::from_secs(3600))
        .handler(move |ctx: JobContext| {
            let signals = signals.clone();
            async move {
                if let Some(tx) = signals.lock().unwrap().0.take() {
                    let _ = tx.send(());
                }
                ctx.cancelled().await;
                if let Some(tx) = signals.lock().unwrap().1.take() {
                    let _ = tx.send(());
                }
                Ok::<(), String>(())
            }
        })
        .unwrap();
    let holder = HolderId::generate("cut", 1);
    let mut config =
        SchedulerConfig::new(ElectorConfig::new(holder).with_ttl(Duration::from_secs(2)));
    config.heartbeat_interval = Duration::from_millis(100);
    config.abandon_after = Duration::from_secs(1);
    config.poll_interval = Duration::from_millis(200);
    config.shutdown_grace = Duration::from_millis(200);
    let jobs: Arc<dyn JobStore> = store.clone();
    let node = Scheduler::builder(Arc::new(MemoryLeaseStore::default()), jobs)
        .config(config)
        .job(endless)
        .start()
        .await
        .unwrap();
    let params = TriggerParams {
        job: "endless".parse().unwrap(),
        fire_key: None,
        scheduled_at: None,
        trigger: Trigger::Manual,
        claim_for: None,
    };
    store.trigger(params).await.unwrap();
    tokio::time::timeout(Duration::from_secs(10), started).await.expect("started").unwrap();
    let cut_at = tokio::time::Instant::now();
    store.cut.store(true, Ordering::SeqCst);
    tokio::time::timeout(Duration::from_secs(10), stopped).await.expect("stopped").unwrap();
    let stopped_after = cut_at.elapsed();
    // The store would abandon the execution 1 s after its last heartbeat, which came at most
    // one heartbeat interval before the cut: the handler must have stopped before then.
    assert!(
        stopped_after < Duration::from_millis(900),
        "stopped only {stopped_after:?} after the cut"
    );
    let running = store.inner.execution_list(ExecutionListParams::default()).await.unwrap().items;
    assert_eq!(
        running[0].status,
        baton::core::ExecutionStatus::Running,
        "nothing reached the store"
    );
    store.cut.store(false, Ordering::SeqCst);
    node.shutdown().await;
}
