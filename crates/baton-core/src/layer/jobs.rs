//! [`JobStore`] through a layer.

use async_trait::async_trait;

use super::{Layer, Layered};
use crate::error::{Error, Result};
use crate::job::{
    ClaimParams, Claimed, CompleteParams, Completed, DueChanges, Execution, ExecutionListParams,
    FiresRecorded, HeartbeatOutcome, HeartbeatParams, Job, JobDefinition, JobListParams, JobStore,
    PruneParams, RecordFiresParams, RescueParams, Rescued, TriggerOutcome, TriggerParams,
};
use crate::page::Page;
use crate::schedule::JobName;
use crate::time::StoreTime;

#[async_trait]
impl<L: Layer> JobStore for Layered<dyn JobStore, L> {
    async fn job_upsert(&self, definition: JobDefinition) -> Result<Job> {
        self.through("job_upsert", self.inner.job_upsert(definition)).await
    }

    async fn job_get(&self, name: &JobName) -> Result<Option<Job>> {
        self.through("job_get", self.inner.job_get(name)).await
    }

    async fn job_list(&self, params: JobListParams) -> Result<Page<Job>> {
        self.through("job_list", self.inner.job_list(params)).await
    }

    async fn job_set_paused(&self, name: &JobName, paused: bool) -> Result<Job> {
        self.through("job_set_paused", self.inner.job_set_paused(name, paused)).await
    }

    async fn job_skip_through(&self, name: &JobName, through: StoreTime) -> Result<Job> {
        self.through("job_skip_through", self.inner.job_skip_through(name, through)).await
    }

    async fn job_last_fires(&self) -> Result<Vec<(JobName, StoreTime)>> {
        self.through("job_last_fires", self.inner.job_last_fires()).await
    }

    async fn job_pruned_through(&self) -> Result<Vec<(JobName, StoreTime)>> {
        self.through("job_pruned_through", self.inner.job_pruned_through()).await
    }

    async fn record_fires(&self, params: RecordFiresParams) -> Result<FiresRecorded> {
        self.through("record_fires", self.inner.record_fires(params)).await
    }

    async fn trigger(&self, params: TriggerParams) -> Result<TriggerOutcome> {
        self.through("trigger", self.inner.trigger(params)).await
    }

    async fn claim(&self, params: ClaimParams) -> Result<Claimed> {
        self.through("claim", self.inner.claim(params)).await
    }

    async fn heartbeat(&self, params: HeartbeatParams) -> Result<HeartbeatOutcome> {
        self.through("heartbeat", self.inner.heartbeat(params)).await
    }

    async fn complete(&self, params: CompleteParams) -> Result<Completed> {
        self.through("complete", self.inner.complete(params)).await
    }

    /// One call for the whole batch; when the layer fails it, every item fails the same way.
    async fn complete_batch(&self, batch: Vec<CompleteParams>) -> Vec<Result<Completed>> {
        let size = batch.len();
        let completing = async { Ok(self.inner.complete_batch(batch).await) };
        match self.through("complete_batch", completing).await {
            Ok(results) => results,
            Err(err) => {
                let each = || Err(Error::new(err.kind(), err.to_string()));
                std::iter::repeat_with(each).take(size).collect()
            }
        }
    }

    async fn request_cancel(&self, id: i64) -> Result<bool> {
        self.through("request_cancel", self.inner.request_cancel(id)).await
    }

    async fn rescue(&self, params: RescueParams) -> Result<Rescued> {
        self.through("rescue", self.inner.rescue(params)).await
    }

    async fn execution_get(&self, id: i64) -> Result<Option<Execution>> {
        self.through("execution_get", self.inner.execution_get(id)).await
    }

    async fn execution_output(&self, id: i64) -> Result<Option<String>> {
        self.through("execution_output", self.inner.execution_output(id)).await
    }

    async fn execution_list(&self, params: ExecutionListParams) -> Result<Page<Execution>> {
        self.through("execution_list", self.inner.execution_list(params)).await
    }

    async fn prune(&self, params: PruneParams) -> Result<u64> {
        self.through("prune", self.inner.prune(params)).await
    }

    async fn subscribe_due(&self) -> Result<Option<Box<dyn DueChanges>>> {
        self.through("subscribe_due", self.inner.subscribe_due()).await
    }

    async fn now(&self) -> Result<StoreTime> {
        self.through("job_store_now", self.inner.now()).await
    }
}
