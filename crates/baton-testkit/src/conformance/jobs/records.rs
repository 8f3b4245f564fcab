//! Cases on registering jobs and recording fires (I5).

use std::collections::BTreeSet;
use std::time::Duration;

use baton_core::job::{NewFire, RecordFiresParams};
use baton_core::{ExecutionStatus, FireKey, OverlapPolicy, RetryPolicy, Schedule, Trigger};

use super::JobHarness;
use super::support::*;

/// A registered job reads back with its definition; re-registering replaces the definition
/// and keeps the id, the controls and the creation time.
pub async fn a_registered_job_reads_back(h: &dyn JobHarness) {
    let store = h.store().await;
    let name = unique_job("register");
    let policy = overlap(OverlapPolicy::BufferOne)
        .with_retry(RetryPolicy::default().with_max_attempts(3))
        .with_starting_deadline(Some(Duration::from_secs(90)));
    let job = store.job_upsert(definition(&name, policy)).await.expect("register");
    assert!(job.id > 0, "ids start at 1");
    assert_eq!(job.definition, definition(&name, policy));
    assert!(!job.paused);
    assert_eq!(job.skip_through, None);
    assert_eq!(job.created_at, job.updated_at);
    assert_eq!(store.job_get(&name).await.unwrap(), Some(job.clone()));

    let paused = store.job_set_paused(&name, true).await.expect("pause");
    assert!(paused.paused);
    assert!(paused.updated_at >= job.updated_at);
    let through = plus(job.created_at, 3_600);
    let skipping = store.job_skip_through(&name, through).await.expect("skip through");
    assert_eq!((skipping.paused, skipping.skip_through), (true, Some(through)));

    let mut changed = definition(&name, allow());
    changed.schedule = Schedule::every(Duration::from_secs(300)).unwrap();
    let again = store.job_upsert(changed.clone()).await.expect("re-register");
    assert_eq!(again.id, job.id, "re-registering keeps the id");
    assert_eq!(again.definition, changed);
    assert_eq!((again.paused, again.skip_through), (true, Some(through)), "controls are kept");
    assert_eq!(again.created_at, job.created_at);
    assert!(again.updated_at >= skipping.updated_at);
    assert_eq!(store.job_get(&name).await.unwrap(), Some(again));

    let resumed = store.job_set_paused(&name, false).await.expect("resume");
    assert!(!resumed.paused);
    let other = store.job_upsert(definition(&unique_job("register"), allow())).await.unwrap();
    assert!(other.id > job.id, "a later job gets a greater id");
    assert_eq!(store.job_get(&unique_job("absent")).await.unwrap(), None);
}

/// Recording a fire twice, in one call or two, leaves one record; only inserts are counted
/// and a fire's record carries its identity and due instant.
pub async fn record_fires_is_idempotent_and_counts_only_inserts(h: &dyn JobHarness) {
    let store = h.store().await;
    let job = register(&*store, "fires", allow()).await;
    let base = past(&*store).await;
    let first: Vec<NewFire> = (0..3)
        .map(|i| NewFire { due_at: plus(base, i * 60 + 5), ..fire(&job, plus(base, i * 60)) })
        .collect();
    assert_eq!(record(&*store, first.clone()).await, 3);
    let mut second = first.clone();
    second.extend([fire(&job, plus(base, 180)), fire(&job, plus(base, 180))]);
    assert_eq!(record(&*store, second).await, 1, "only the new fire is inserted, once");
    assert_eq!(record(&*store, first).await, 0);

    let recorded = executions(&*store, &job).await;
    assert_eq!(times(&recorded), [0, 60, 120, 180].map(|s| plus(base, s)));
    for (i, execution) in recorded.iter().enumerate() {
        let at = execution.scheduled_at;
        assert_eq!(execution.job, job);
        assert_eq!(execution.fire_key, FireKey::at(at));
        assert_eq!(execution.due_at, if i < 3 { plus(at, 5) } else { at });
        assert_eq!((execution.attempt, execution.trigger), (1, Trigger::Schedule));
        assert_eq!(execution.status, ExecutionStatus::Scheduled);
        assert_eq!((execution.node.as_ref(), execution.token), (None, None));
        assert_eq!((execution.started_at, execution.finished_at), (None, None));
        assert_eq!((execution.covers_through, execution.covers_count), (None, 1));
        assert!(!execution.cancel_requested);
        assert_eq!(get(&*store, execution.id).await, *execution);
    }
}

/// Eight leaders, each on its own handle, record the same 50 fires at once: each fire is
/// recorded exactly once and the inserts add up to 50 (I5).
pub async fn racing_leaders_record_each_fire_once(h: &dyn JobHarness) {
    let store = h.store().await;
    let job = register(&*store, "leaders", allow()).await;
    let base = past(&*store).await;
    let fires: Vec<NewFire> = (0..50).map(|i| fire(&job, plus(base, i))).collect();
    let mut tasks = Vec::new();
    for _ in 0..8 {
        let store = h.store().await;
        let fires = fires.clone();
        tasks.push(tokio::spawn(async move {
            store.record_fires(RecordFiresParams { fires, missed: Vec::new() }).await
        }));
    }
    let mut inserted = 0;
    for task in tasks {
        inserted += task.await.unwrap().expect("a leader's record_fires must succeed").inserted;
    }
    assert_eq!(inserted, 50, "the leaders' inserts add up to one per fire");
    let recorded = executions(&*store, &job).await;
    assert_eq!(recorded.len(), 50, "one record per fire");
    let keys: BTreeSet<&FireKey> = recorded.iter().map(|e| &e.fire_key).collect();
    assert_eq!(keys.len(), 50);
}
