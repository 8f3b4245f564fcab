//! Cases on registering jobs and recording fires (I5).

use std::collections::BTreeSet;
use std::time::Duration;

use baton_core::job::{MissedFires, NewFire, RecordFiresParams};
use baton_core::{
    ExecutionStatus, FireKey, JobName, JobStore, OverlapPolicy, RetryPolicy, Schedule, StoreTime,
    Trigger,
};

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

/// Two leaders, one recording a fire at an instant and the other a missed run covering it
/// from an earlier instant (so under another identity), leave the instant run or missed,
/// never both: whichever is recorded first holds it and the other is left out, in either
/// order and when they race on separate handles (I5).
pub async fn an_instant_is_never_both_run_and_missed(h: &dyn JobHarness) {
    let store = h.store().await;
    let base = past(&*store).await;
    let inside = plus(base, 60);
    let run_from = |job: &JobName, first: StoreTime| MissedFires {
        job: job.clone(),
        first,
        last: plus(first, 120),
        count: 3,
        reason: "misfire=skip: the other leader's view".into(),
    };
    let fire_at =
        |job: &JobName| RecordFiresParams { fires: vec![fire(job, inside)], ..Default::default() };
    let missed = |job: &JobName, first| RecordFiresParams {
        missed: vec![run_from(job, first)],
        ..Default::default()
    };

    let job = register(&*store, "fire-first", allow()).await;
    assert_eq!(store.record_fires(fire_at(&job)).await.unwrap().inserted, 1);
    assert_eq!(store.record_fires(missed(&job, base)).await.unwrap().inserted, 0, "run left out");
    assert_eq!(holders(&*store, &job, inside).await, [ExecutionStatus::Scheduled]);

    let job = register(&*store, "run-first", allow()).await;
    assert_eq!(store.record_fires(missed(&job, base)).await.unwrap().inserted, 1);
    assert_eq!(store.record_fires(fire_at(&job)).await.unwrap().inserted, 0, "fire left out");
    let overlapping = missed(&job, inside);
    assert_eq!(store.record_fires(overlapping).await.unwrap().inserted, 0, "a run reaching in");
    assert_eq!(holders(&*store, &job, inside).await, [ExecutionStatus::Missed]);

    for round in 0..20 {
        let job = register(&*store, "race", allow()).await;
        let (leader, other) = (h.store().await, h.store().await);
        let (fire_params, missed_params) = (fire_at(&job), missed(&job, base));
        let fires = tokio::spawn(async move { leader.record_fires(fire_params).await });
        let runs = tokio::spawn(async move { other.record_fires(missed_params).await });
        let mut inserted = 0;
        for task in [fires, runs] {
            inserted += task.await.unwrap().expect("a leader's record_fires must succeed").inserted;
        }
        assert_eq!(inserted, 1, "round {round}: one of the two is recorded");
        assert_eq!(holders(&*store, &job, inside).await.len(), 1, "round {round}");
    }
}

/// The statuses of the schedule records of `job` that account for the instant `at`.
async fn holders(store: &dyn JobStore, job: &JobName, at: StoreTime) -> Vec<ExecutionStatus> {
    let holding = executions(store, job).await.into_iter().filter(|e| {
        e.trigger == Trigger::Schedule
            && e.scheduled_at <= at
            && e.covers_through.unwrap_or(e.scheduled_at) >= at
    });
    holding.map(|e| e.status).collect()
}
