//! Retention and the audit: what pruning deleted stays known, so that an audit does not count
//! a deleted record as a missing fire.

use std::collections::HashMap;
use std::time::Duration;

use baton_core::job::{PruneParams, audit};
use baton_core::{ExecutionStatus, JobName, Retention, StoreTime};

use super::JobHarness;
use super::support::*;
use crate::conformance::unique_holder;

/// Pruning raises the job's watermark to the last instant of the schedule's records it
/// deleted (a manual run does not count), in the same call; an audit of the window then finds
/// the deleted fires pruned, not missing.
pub async fn prune_keeps_how_far_it_deleted_for_the_audit(h: &dyn JobHarness) {
    let store = h.store().await;
    let job = register(&*store, "pruned", allow()).await;
    let node = unique_holder("node");
    let minute = past(&*store).await.as_millis() / 60_000 * 60_000;
    let base = StoreTime::from_millis(minute);
    let at: Vec<StoreTime> = (0..6).map(|i| plus(base, i * 60)).collect();
    record_each(&*store, &job, &at).await;
    for execution in claim_running(&*store, &node, &job, &at).await {
        complete(&*store, &execution, ExecutionStatus::Succeeded).await;
    }
    let manual =
        recorded(store.trigger(trigger_params(&job, None, Some(plus(base, 270)))).await.unwrap());
    assert!(store.request_cancel(manual.id).await.unwrap());
    assert_eq!(watermark(&*store, &job).await, None, "nothing pruned yet");

    let prune = |keep: u32, batch: u32| PruneParams {
        job: job.clone(),
        retention: Retention::default().with_counts(keep, 0),
        batch,
    };
    assert_eq!(store.prune(prune(2, 100)).await.unwrap(), 5, "4 succeeded and the manual run");
    assert_eq!(watermark(&*store, &job).await, Some(at[3]), "the manual run does not count");
    assert_eq!(store.prune(prune(0, 1)).await.unwrap(), 1);
    assert_eq!(watermark(&*store, &job).await, Some(at[4]));
    assert_eq!(store.prune(prune(0, 100)).await.unwrap(), 0, "the last record stays");
    assert_eq!(watermark(&*store, &job).await, Some(at[4]));

    let mut registered = store.job_get(&job).await.unwrap().expect("registered");
    registered.created_at = StoreTime::from_millis(base.as_millis() - 1);
    let pruned = store.job_pruned_through().await.unwrap();
    let report = audit(
        &[registered],
        &executions(&*store, &job).await,
        &pruned,
        base,
        plus(base, 301),
        Duration::from_secs(3_600),
    );
    assert_eq!((report.expected, report.ran, report.pruned), (6, 1, 5), "{report:?}");
    assert!(report.is_clean(), "{report:?}");
}

async fn watermark(store: &dyn baton_core::JobStore, job: &JobName) -> Option<StoreTime> {
    let marks: HashMap<JobName, StoreTime> =
        store.job_pruned_through().await.unwrap().into_iter().collect();
    marks.get(job).copied()
}
