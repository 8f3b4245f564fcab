//! A gate that every store call of a test node passes, so that the node can stop itself with
//! SIGSTOP at a clean point: between two calls, holding no transaction or row lock open, as a
//! SIGSTOP of the whole process between two calls would (a SIGSTOP in the middle of a SQLite
//! write transaction would block every other process until SIGCONT).
//!
//! [`Gate::stop_here`] speaks the protocol of [`EventedProcess::pause`]: it prints `STOPPING`
//! on stdout before it stops and `RESUMED` after SIGCONT.
//!
//! [`EventedProcess::pause`]: crate::evented::EventedProcess::pause

use std::future::Future;
use std::io::Write;
use std::sync::Arc;

use async_trait::async_trait;
use baton::core::cluster::{
    BatchCreateParams, BatchJob, BatchListParams, ClusterStore, Node, NodeChange,
    NodeChangesParams, NodeHeartbeatOutcome, NodeHeartbeatParams, NodeLeaveParams, NodeListParams,
    NodeRegisterParams, NodeSweepParams, Partition, PartitionCheckpointParams,
    PartitionClaimParams, PartitionCompleteParams, PartitionFailParams, PartitionListParams,
    PartitionReassignParams, PendingChanges, Reassigned, Swept,
};
use baton::core::job::{
    ClaimParams, Claimed, CompleteParams, Completed, DueChanges, ExecutionListParams,
    FiresRecorded, HeartbeatOutcome, HeartbeatParams, JobListParams, PruneParams,
    RecordFiresParams, RescueParams, Rescued, TriggerOutcome, TriggerParams,
};
use baton::core::schedule::JobName;
use baton::core::{
    AcquireOutcome, AcquireParams, Capabilities, ForceReleaseParams, LeaseChanges, ReleaseParams,
    RenewAllOutcome, RenewAllParams, RenewParams,
};
use baton::core::{Execution, Job as JobRecord, JobDefinition, JobStore};
use baton::{HistoryParams, LeaderChange, Lease, LeaseName, LeaseStore, Page, Result, StoreTime};
use nix::sys::signal::{Signal, raise};
use tokio::sync::RwLock;

/// Every store call of a process passes the gate; [`Gate::stop_here`] closes it.
#[derive(Debug, Default)]
pub struct Gate(RwLock<()>);

impl Gate {
    /// Runs a store call while the gate is open.
    pub async fn pass<T>(&self, call: impl Future<Output = T>) -> T {
        let _open = self.0.read().await;
        call.await
    }

    /// Closes the gate, waits for the calls in flight, prints `STOPPING <during>` and stops
    /// the process until SIGCONT; then prints `RESUMED` and opens the gate again.
    pub async fn stop_here(&self, during: &str) {
        let _closed = self.0.write().await;
        say(&format!("STOPPING {during}"));
        if let Err(err) = raise(Signal::SIGSTOP) {
            say(&format!("ERROR cannot stop: {err}"));
        }
        say("RESUMED");
    }
}

fn say(line: &str) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

/// A store whose calls pass a gate. Subscriptions are opened through the gate; waiting on
/// them is not a store call and does not pass it.
pub struct Gated<S: ?Sized> {
    inner: Arc<S>,
    gate: Arc<Gate>,
}

impl<S: ?Sized> Gated<S> {
    /// `inner`, behind `gate`.
    pub fn new(inner: Arc<S>, gate: &Arc<Gate>) -> Self {
        Gated { inner, gate: gate.clone() }
    }
}

#[async_trait]
impl LeaseStore for Gated<dyn LeaseStore> {
    async fn acquire(&self, params: AcquireParams) -> Result<AcquireOutcome> {
        self.gate.pass(self.inner.acquire(params)).await
    }
    async fn renew(&self, params: RenewParams) -> Result<Lease> {
        self.gate.pass(self.inner.renew(params)).await
    }
    async fn renew_all(&self, params: RenewAllParams) -> Result<RenewAllOutcome> {
        self.gate.pass(self.inner.renew_all(params)).await
    }
    async fn release(&self, params: ReleaseParams) -> Result<bool> {
        self.gate.pass(self.inner.release(params)).await
    }
    async fn force_release(&self, params: ForceReleaseParams) -> Result<Option<Lease>> {
        self.gate.pass(self.inner.force_release(params)).await
    }
    async fn get(&self, name: &LeaseName) -> Result<Option<Lease>> {
        self.gate.pass(self.inner.get(name)).await
    }
    async fn list(&self) -> Result<Vec<Lease>> {
        self.gate.pass(self.inner.list()).await
    }
    async fn history(&self, params: HistoryParams) -> Result<Page<LeaderChange>> {
        self.gate.pass(self.inner.history(params)).await
    }
    async fn now(&self) -> Result<StoreTime> {
        self.gate.pass(self.inner.now()).await
    }
    fn capabilities(&self) -> Capabilities {
        self.inner.capabilities()
    }
    async fn subscribe(&self) -> Result<Option<Box<dyn LeaseChanges>>> {
        self.gate.pass(self.inner.subscribe()).await
    }
}

#[async_trait]
impl ClusterStore for Gated<dyn ClusterStore> {
    async fn node_register(&self, params: NodeRegisterParams) -> Result<Node> {
        self.gate.pass(self.inner.node_register(params)).await
    }
    async fn node_heartbeat(&self, params: NodeHeartbeatParams) -> Result<NodeHeartbeatOutcome> {
        self.gate.pass(self.inner.node_heartbeat(params)).await
    }
    async fn node_leave(&self, params: NodeLeaveParams) -> Result<Node> {
        self.gate.pass(self.inner.node_leave(params)).await
    }
    async fn node_list(&self, params: NodeListParams) -> Result<Page<Node>> {
        self.gate.pass(self.inner.node_list(params)).await
    }
    async fn node_sweep(&self, params: NodeSweepParams) -> Result<Swept> {
        self.gate.pass(self.inner.node_sweep(params)).await
    }
    async fn node_changes(&self, params: NodeChangesParams) -> Result<Page<NodeChange>> {
        self.gate.pass(self.inner.node_changes(params)).await
    }
    async fn batch_create(&self, params: BatchCreateParams) -> Result<BatchJob> {
        self.gate.pass(self.inner.batch_create(params)).await
    }
    async fn batch_get(&self, id: i64) -> Result<Option<BatchJob>> {
        self.gate.pass(self.inner.batch_get(id)).await
    }
    async fn batch_list(&self, params: BatchListParams) -> Result<Page<BatchJob>> {
        self.gate.pass(self.inner.batch_list(params)).await
    }
    async fn batch_finish(&self, id: i64) -> Result<BatchJob> {
        self.gate.pass(self.inner.batch_finish(id)).await
    }
    async fn partition_list(&self, params: PartitionListParams) -> Result<Page<Partition>> {
        self.gate.pass(self.inner.partition_list(params)).await
    }
    async fn partition_claim(&self, params: PartitionClaimParams) -> Result<Vec<Partition>> {
        self.gate.pass(self.inner.partition_claim(params)).await
    }
    async fn partition_checkpoint(&self, params: PartitionCheckpointParams) -> Result<Partition> {
        self.gate.pass(self.inner.partition_checkpoint(params)).await
    }
    async fn partition_complete(&self, params: PartitionCompleteParams) -> Result<Partition> {
        self.gate.pass(self.inner.partition_complete(params)).await
    }
    async fn partition_fail(&self, params: PartitionFailParams) -> Result<Partition> {
        self.gate.pass(self.inner.partition_fail(params)).await
    }
    async fn partition_reassign(&self, params: PartitionReassignParams) -> Result<Reassigned> {
        self.gate.pass(self.inner.partition_reassign(params)).await
    }
    async fn subscribe_pending(&self) -> Result<Option<Box<dyn PendingChanges>>> {
        self.gate.pass(self.inner.subscribe_pending()).await
    }
    async fn now(&self) -> Result<StoreTime> {
        self.gate.pass(self.inner.now()).await
    }
}

#[async_trait]
impl JobStore for Gated<dyn JobStore> {
    async fn job_upsert(&self, definition: JobDefinition) -> Result<JobRecord> {
        self.gate.pass(self.inner.job_upsert(definition)).await
    }
    async fn job_get(&self, name: &JobName) -> Result<Option<JobRecord>> {
        self.gate.pass(self.inner.job_get(name)).await
    }
    async fn job_list(&self, params: JobListParams) -> Result<Page<JobRecord>> {
        self.gate.pass(self.inner.job_list(params)).await
    }
    async fn job_set_paused(&self, name: &JobName, paused: bool) -> Result<JobRecord> {
        self.gate.pass(self.inner.job_set_paused(name, paused)).await
    }
    async fn job_skip_through(&self, name: &JobName, through: StoreTime) -> Result<JobRecord> {
        self.gate.pass(self.inner.job_skip_through(name, through)).await
    }
    async fn job_last_fires(&self) -> Result<Vec<(JobName, StoreTime)>> {
        self.gate.pass(self.inner.job_last_fires()).await
    }
    async fn record_fires(&self, params: RecordFiresParams) -> Result<FiresRecorded> {
        self.gate.pass(self.inner.record_fires(params)).await
    }
    async fn trigger(&self, params: TriggerParams) -> Result<TriggerOutcome> {
        self.gate.pass(self.inner.trigger(params)).await
    }
    async fn claim(&self, params: ClaimParams) -> Result<Claimed> {
        self.gate.pass(self.inner.claim(params)).await
    }
    async fn heartbeat(&self, params: HeartbeatParams) -> Result<HeartbeatOutcome> {
        self.gate.pass(self.inner.heartbeat(params)).await
    }
    async fn complete(&self, params: CompleteParams) -> Result<Completed> {
        self.gate.pass(self.inner.complete(params)).await
    }
    async fn request_cancel(&self, id: i64) -> Result<bool> {
        self.gate.pass(self.inner.request_cancel(id)).await
    }
    async fn rescue(&self, params: RescueParams) -> Result<Rescued> {
        self.gate.pass(self.inner.rescue(params)).await
    }
    async fn execution_get(&self, id: i64) -> Result<Option<Execution>> {
        self.gate.pass(self.inner.execution_get(id)).await
    }
    async fn execution_output(&self, id: i64) -> Result<Option<String>> {
        self.gate.pass(self.inner.execution_output(id)).await
    }
    async fn execution_list(&self, params: ExecutionListParams) -> Result<Page<Execution>> {
        self.gate.pass(self.inner.execution_list(params)).await
    }
    async fn prune(&self, params: PruneParams) -> Result<u64> {
        self.gate.pass(self.inner.prune(params)).await
    }
    async fn subscribe_due(&self) -> Result<Option<Box<dyn DueChanges>>> {
        self.gate.pass(self.inner.subscribe_due()).await
    }
    async fn now(&self) -> Result<StoreTime> {
        self.gate.pass(self.inner.now()).await
    }
}
