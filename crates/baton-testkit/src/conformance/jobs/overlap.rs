//! Cases on the overlap policies: what a claim does with a fire of a job that has an
//! execution running.

use baton_core::{ExecutionStatus, OverlapPolicy};

use super::JobHarness;
use super::support::*;
use crate::conformance::unique_holder;

/// Overlap `forbid`: a fire that comes due while an execution of the job runs is skipped,
/// naming that execution.
pub async fn overlap_forbid_skips_a_fire_that_comes_due_while_one_runs(h: &dyn JobHarness) {
    let store = h.store().await;
    let job = register(&*store, "forbid", overlap(OverlapPolicy::Forbid)).await;
    let node = unique_holder("node");
    let base = past(&*store).await;
    record_each(&*store, &job, &[base]).await;
    let first = claim_running(&*store, &node, &job, &[base]).await.remove(0);
    wait_past(&*store, first.started_at.expect("a running execution has started")).await;
    let now = store.now().await.expect("store time");
    record_each(&*store, &job, &[now]).await;
    let claimed = claim(&*store, &node, &job).await;
    assert_eq!(claimed.running, Vec::new());
    assert_eq!(times(&claimed.settled), [now]);
    let skipped = &claimed.settled[0];
    assert_eq!(skipped.status, ExecutionStatus::Skipped);
    let reason = format!("overlap=forbid: execution {} still running", first.id);
    assert_eq!(skipped.detail.as_deref(), Some(reason.as_str()));
    complete(&*store, &first, ExecutionStatus::Succeeded).await;
}

/// Overlap `forbid`: fires owed together, as a new leader records those due while no leader
/// ran, overlap nothing when they come due. The first runs; each of the others waits for the
/// one before it (never skipped against an execution that started after it came due), and
/// runs once that one has ended, whose completion wakes the workers.
pub async fn overlap_forbid_runs_owed_fires_one_after_another(h: &dyn JobHarness) {
    let store = h.store().await;
    let job = register(&*store, "owed", overlap(OverlapPolicy::Forbid)).await;
    let node = unique_holder("node");
    let base = past(&*store).await;
    let owed = [base, plus(base, 60), plus(base, 120)];
    assert_eq!(record(&*store, owed.iter().map(|at| fire(&job, *at)).collect()).await, 3);
    let mut running = claim_running(&*store, &node, &job, &owed[..1]).await.remove(0);
    claim_running(&*store, &node, &job, &[]).await;
    for at in &owed[1..] {
        assert_eq!(at_time(&*store, &job, *at).await.status, ExecutionStatus::Scheduled);
        let feed = store.subscribe_due().await.expect("subscribe_due");
        complete(&*store, &running, ExecutionStatus::Succeeded).await;
        if let Some(mut feed) = feed {
            tokio::time::timeout(PATIENCE, feed.next())
                .await
                .expect("no wake-up once the execution a fire waits on completed")
                .expect("the feed works");
        }
        running = claim_running(&*store, &node, &job, &[*at]).await.remove(0);
    }
    complete(&*store, &running, ExecutionStatus::Succeeded).await;
    for execution in executions(&*store, &job).await {
        assert_eq!(execution.status, ExecutionStatus::Succeeded, "{execution:?}");
    }
}

/// Overlap `allow`: a fire due while one runs starts alongside it.
pub async fn overlap_allow_runs_both(h: &dyn JobHarness) {
    let store = h.store().await;
    let job = register(&*store, "allow", allow()).await;
    let node = unique_holder("node");
    let base = past(&*store).await;
    record_each(&*store, &job, &[base]).await;
    let first = claim_running(&*store, &node, &job, &[base]).await.remove(0);
    record_each(&*store, &job, &[plus(base, 60)]).await;
    let second = claim_running(&*store, &node, &job, &[plus(base, 60)]).await.remove(0);
    assert!(token(&second) > token(&first), "a later claim gets a greater token");
    assert_eq!(get(&*store, first.id).await.status, ExecutionStatus::Running);
}

/// Overlap `replace`: a new fire asks the running one to stop (seen in its heartbeat) and runs
/// only once the old one has completed.
pub async fn overlap_replace_cancels_the_running_one_first(h: &dyn JobHarness) {
    let store = h.store().await;
    let job = register(&*store, "replace", overlap(OverlapPolicy::Replace)).await;
    let node = unique_holder("node");
    let base = past(&*store).await;
    record_each(&*store, &job, &[base]).await;
    let old = claim_running(&*store, &node, &job, &[base]).await.remove(0);
    record_each(&*store, &job, &[plus(base, 60)]).await;
    claim_running(&*store, &node, &job, &[]).await;

    let beat = heartbeat(&*store, &node, &[(old.id, token(&old))]).await;
    assert_eq!((beat.lost, beat.cancel), (no_ids(), vec![old.id]), "the old run is asked to stop");
    let asked = get(&*store, old.id).await;
    assert!(asked.cancel_requested && asked.status == ExecutionStatus::Running, "{asked:?}");
    let new = at_time(&*store, &job, plus(base, 60)).await;
    assert_eq!(new.status, ExecutionStatus::Scheduled, "the new fire waits");
    claim_running(&*store, &node, &job, &[]).await;

    complete(&*store, &old, ExecutionStatus::Cancelled).await;
    let new = claim_running(&*store, &node, &job, &[plus(base, 60)]).await.remove(0);
    assert!(token(&new) > token(&old));
}

/// Overlap `buffer-one`: while one runs, the first fire due waits and later ones are skipped;
/// the waiting one runs when the running one ends.
pub async fn overlap_buffer_one_keeps_one_waiting(h: &dyn JobHarness) {
    let store = h.store().await;
    let job = register(&*store, "buffer", overlap(OverlapPolicy::BufferOne)).await;
    let node = unique_holder("node");
    let base = past(&*store).await;
    record_each(&*store, &job, &[base]).await;
    let first = claim_running(&*store, &node, &job, &[base]).await.remove(0);
    record_each(&*store, &job, &[60, 120, 180].map(|s| plus(base, s))).await;
    let claimed = claim(&*store, &node, &job).await;
    assert_eq!(claimed.running, Vec::new());
    let mut settled = claimed.settled;
    settled.sort_by_key(|e| e.scheduled_at);
    assert_eq!(times(&settled), [plus(base, 120), plus(base, 180)]);
    for skipped in &settled {
        assert_eq!(skipped.status, ExecutionStatus::Skipped);
        let detail = skipped.detail.as_deref().unwrap_or_default();
        assert!(detail.contains("overlap=buffer-one"), "{skipped:?}");
    }
    let waiting = at_time(&*store, &job, plus(base, 60)).await;
    assert_eq!(waiting.status, ExecutionStatus::Scheduled);

    complete(&*store, &first, ExecutionStatus::Succeeded).await;
    claim_running(&*store, &node, &job, &[plus(base, 60)]).await;
}
