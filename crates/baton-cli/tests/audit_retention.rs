//! `baton audit` over a record that retention pruned: the deleted fires are reported as
//! pruned, not missing, and the audit passes.

use std::time::Duration;

use baton::core::job::{ClaimParams, CompleteParams, NewFire, PruneParams, RecordFiresParams};
use baton::core::schedule::{JobPolicy, OverlapPolicy, Retention, Schedule};
use baton::core::{ExecutionStatus, HolderId, JobDefinition, JobStore, StoreTime};
use baton::sqlite::SqliteBackend;

mod common;

use common::*;

/// Six fires of an every-second job, each run once and succeeded, of which retention keeps
/// the newest one; answers the first and the last instant.
async fn pruned_record(url: &str) -> (StoreTime, StoreTime) {
    let backend = SqliteBackend::connect(url).await.unwrap();
    backend.migrate().await.unwrap();
    let store = backend.jobs();
    let name: baton::core::JobName = "tick".parse().unwrap();
    let schedule = Schedule::every(Duration::from_secs(1)).unwrap();
    let policy = JobPolicy::default().with_overlap(OverlapPolicy::Allow);
    let job = store.job_upsert(JobDefinition { name: name.clone(), schedule, policy }).await;
    let first = job.unwrap().created_at.as_millis() / 1000 * 1000 + 1000;
    let at: Vec<StoreTime> = (0..6).map(|i| StoreTime::from_millis(first + i * 1000)).collect();
    let fires = at.iter().map(|at| NewFire { job: name.clone(), scheduled_at: *at, due_at: *at });
    let params = RecordFiresParams { fires: fires.collect(), missed: Vec::new() };
    assert_eq!(store.record_fires(params).await.unwrap().inserted, 6);
    let node = HolderId::new("auditor").unwrap();
    let claim =
        ClaimParams { node, limit: 10, jobs: vec![name.clone()], ahead: Duration::from_secs(60) };
    let claimed = store.claim(claim).await.unwrap().running;
    assert_eq!(claimed.len(), 6);
    for execution in claimed {
        let token = execution.token.unwrap();
        let status = ExecutionStatus::Succeeded;
        let done = CompleteParams { id: execution.id, token, status, detail: None, output: None };
        store.complete(done).await.unwrap();
    }
    let retention = Retention::default().with_counts(1, 1);
    let prune = PruneParams { job: name, retention, batch: 100 };
    assert_eq!(store.prune(prune).await.unwrap(), 5);
    backend.close().await;
    (at[0], at[5])
}

#[test]
fn fires_whose_records_retention_deleted_are_not_missing() {
    let s = store();
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let (first, last) = runtime.block_on(pruned_record(&s.url));
    let (since, until) = (first.to_string(), StoreTime::from_millis(last.as_millis() + 1));
    let out = s.run(&["audit", "--job", "tick", "--since", &since, "--until", &until.to_string()]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}{}", stderr(&out));
    assert!(text.contains("expected fires      6"), "{text}");
    assert!(text.contains("ran                 1"), "{text}");
    assert!(text.contains("pruned              5"), "{text}");
    assert!(text.contains("missing             0"), "{text}");
}
