//! A `JobStore` that passes every call through, tallied by kind (see `tally`), so a node can
//! report which calls its statements went to; successful completions are also counted in the
//! node's [`Completions`].

use std::sync::Arc;

use async_trait::async_trait;
use baton::core::job::{
    ClaimParams, Claimed, CompleteParams, Completed, DueChanges, ExecutionListParams,
    FiresRecorded, HeartbeatOutcome, HeartbeatParams, JobListParams, PruneParams,
    RecordFiresParams, RescueParams, Rescued, TriggerOutcome, TriggerParams,
};
use baton::core::schedule::JobName;
use baton::core::{Execution, Job, JobDefinition, JobStore};
use baton::{Page, Result, StoreTime};

use crate::completions::Completions;
use crate::tally::{self, tallied};

/// A job store whose calls are tallied.
pub(crate) struct TalliedJobs {
    inner: Arc<dyn JobStore>,
    completions: Arc<Completions>,
}

impl TalliedJobs {
    /// Wraps `inner`; successful completions are noted in `completions`.
    pub(crate) fn wrap(
        inner: Arc<dyn JobStore>,
        completions: Arc<Completions>,
    ) -> Arc<dyn JobStore> {
        Arc::new(TalliedJobs { inner, completions })
    }
}

#[async_trait]
impl JobStore for TalliedJobs {
    async fn job_upsert(&self, definition: JobDefinition) -> Result<Job> {
        tallied!("job_upsert", self.inner.job_upsert(definition))
    }

    async fn job_get(&self, name: &JobName) -> Result<Option<Job>> {
        tallied!("job_get", self.inner.job_get(name))
    }

    async fn job_list(&self, params: JobListParams) -> Result<Page<Job>> {
        let page = tallied!("job_list", self.inner.job_list(params));
        if let Ok(page) = &page {
            tally::note_items("job_list", page.items.len() as u64);
        }
        page
    }

    async fn job_set_paused(&self, name: &JobName, paused: bool) -> Result<Job> {
        tallied!("job_set_paused", self.inner.job_set_paused(name, paused))
    }

    async fn job_skip_through(&self, name: &JobName, through: StoreTime) -> Result<Job> {
        tallied!("job_skip_through", self.inner.job_skip_through(name, through))
    }

    async fn job_last_fires(&self) -> Result<Vec<(JobName, StoreTime)>> {
        tallied!("job_last_fires", self.inner.job_last_fires())
    }

    async fn job_pruned_through(&self) -> Result<Vec<(JobName, StoreTime)>> {
        tallied!("job_pruned_through", self.inner.job_pruned_through())
    }

    async fn record_fires(&self, params: RecordFiresParams) -> Result<FiresRecorded> {
        let recorded = tallied!("record_fires", self.inner.record_fires(params));
        if let Ok(recorded) = &recorded {
            tally::note_items("record_fires", recorded.inserted);
        }
        recorded
    }

    async fn trigger(&self, params: TriggerParams) -> Result<TriggerOutcome> {
        tallied!("trigger", self.inner.trigger(params))
    }

    async fn claim(&self, params: ClaimParams) -> Result<Claimed> {
        let claimed = tallied!("claim", self.inner.claim(params));
        if let Ok(claimed) = &claimed {
            tally::note_items("claim", claimed.running.len() as u64);
        }
        claimed
    }

    async fn heartbeat(&self, params: HeartbeatParams) -> Result<HeartbeatOutcome> {
        let beaten = params.executions.len() as u64;
        let outcome = tallied!("heartbeat", self.inner.heartbeat(params));
        tally::note_items("heartbeat", beaten);
        outcome
    }

    async fn complete(&self, params: CompleteParams) -> Result<Completed> {
        let completed = tallied!("complete", self.inner.complete(params));
        tally::note_items("complete", u64::from(completed.is_ok()));
        self.completions.note(u64::from(completed.is_ok()));
        completed
    }

    async fn complete_batch(&self, batch: Vec<CompleteParams>) -> Vec<Result<Completed>> {
        // The inner store's own batch (its override, or the trait's one-by-one default), not
        // this wrapper's `complete`, so the tally shows what the store does for a batch.
        let completing = async { Ok::<_, ()>(self.inner.complete_batch(batch).await) };
        let results = tallied!("complete_batch", completing).unwrap_or_default();
        let completed = results.iter().filter(|r| r.is_ok()).count() as u64;
        tally::note_items("complete_batch", completed);
        self.completions.note(completed);
        results
    }

    async fn request_cancel(&self, id: i64) -> Result<bool> {
        tallied!("request_cancel", self.inner.request_cancel(id))
    }

    async fn rescue(&self, params: RescueParams) -> Result<Rescued> {
        tallied!("rescue", self.inner.rescue(params))
    }

    async fn execution_get(&self, id: i64) -> Result<Option<Execution>> {
        tallied!("execution_get", self.inner.execution_get(id))
    }

    async fn execution_output(&self, id: i64) -> Result<Option<String>> {
        tallied!("execution_output", self.inner.execution_output(id))
    }

    async fn execution_list(&self, params: ExecutionListParams) -> Result<Page<Execution>> {
        tallied!("execution_list", self.inner.execution_list(params))
    }

    async fn prune(&self, params: PruneParams) -> Result<u64> {
        tallied!("prune", self.inner.prune(params))
    }

    async fn subscribe_due(&self) -> Result<Option<Box<dyn DueChanges>>> {
        tallied!("subscribe_due", self.inner.subscribe_due())
    }

    async fn now(&self) -> Result<StoreTime> {
        tallied!("job_store_now", self.inner.now())
    }
}
