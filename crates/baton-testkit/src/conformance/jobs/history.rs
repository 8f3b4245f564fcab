//! Cases on the record: missed runs, last fires, listings, retention, wake-ups and bad input
//! (I8).

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;
use std::time::Duration;

use baton_core::job::{
    ExecutionListParams, JobListParams, MissedFires, NewFire, PruneParams, RecordFiresParams,
};
use baton_core::{
    ErrorKind, ExecutionStatus, FireKey, Job, JobName, Retention, RetryPolicy, StoreTime, Trigger,
};

use super::JobHarness;
use super::support::*;
use crate::conformance::unique_holder;

/// A missed run is one `missed` record at its first fire, covering through its last; it is
/// recorded once and never runs.
pub async fn a_missed_run_is_one_record(h: &dyn JobHarness) {
    let store = h.store().await;
    let job = register(&*store, "missed", allow()).await;
    let node = unique_holder("node");
    let base = past(&*store).await;
    let reason = "misfire=skip: the scheduler was down".to_string();
    let run = MissedFires {
        job: job.clone(),
        first: base,
        last: plus(base, 540),
        count: 10,
        reason: reason.clone(),
    };
    let params = RecordFiresParams { fires: Vec::new(), missed: vec![run] };
    assert_eq!(store.record_fires(params.clone()).await.unwrap().inserted, 1);
    assert_eq!(store.record_fires(params).await.unwrap().inserted, 0, "recorded once");
    assert_eq!(record(&*store, vec![fire(&job, base)]).await, 0, "its first fire is the same fire");
    let stored = executions(&*store, &job).await;
    assert_eq!(stored.len(), 1);
    let missed = &stored[0];
    assert_eq!(
        (missed.status, missed.trigger, missed.attempt),
        (ExecutionStatus::Missed, Trigger::Schedule, 1)
    );
    assert_eq!((missed.fire_key.clone(), missed.scheduled_at), (FireKey::at(base), base));
    assert_eq!((missed.covers_through, missed.covers_count), (Some(plus(base, 540)), 10));
    assert_eq!(missed.detail.as_deref(), Some(reason.as_str()));
    assert!(missed.finished_at.is_some());
    claim_running(&*store, &node, &job, &[]).await;
}

/// `job_last_fires` answers, per job with scheduler records, the last fire accounted for:
/// the latest scheduled instant or the end of a missed run; manual runs do not count.
pub async fn job_last_fires_reports_where_each_job_stopped(h: &dyn JobHarness) {
    let store = h.store().await;
    let (a, b, c) = (
        register(&*store, "last-a", allow()).await,
        register(&*store, "last-b", allow()).await,
        register(&*store, "last-c", allow()).await,
    );
    let base = past(&*store).await;
    let run = MissedFires {
        job: a.clone(),
        first: plus(base, 180),
        last: plus(base, 300),
        count: 3,
        reason: "misfire=skip: late".into(),
    };
    let fires = vec![fire(&a, base), fire(&a, plus(base, 120)), fire(&b, plus(base, 60))];
    store.record_fires(RecordFiresParams { fires, missed: vec![run] }).await.unwrap();
    recorded(store.trigger(trigger_params(&b, None, Some(plus(base, 600)))).await.unwrap());
    let last: HashMap<JobName, StoreTime> =
        store.job_last_fires().await.unwrap().into_iter().collect();
    assert_eq!(last.get(&a), Some(&plus(base, 300)), "the end of the missed run");
    assert_eq!(last.get(&b), Some(&plus(base, 60)), "manual runs do not count");
    assert_eq!(last.get(&c), None, "a job without fires");
}

/// Executions page by id with a keyset cursor and filter by job, status and scheduled time.
pub async fn execution_list_pages_and_filters(h: &dyn JobHarness) {
    let store = h.store().await;
    let job = register(&*store, "list", allow()).await;
    let node = unique_holder("node");
    let base = past(&*store).await;
    let at: Vec<StoreTime> = (0..7).map(|i| plus(base, i * 60)).collect();
    record_each(&*store, &job, &at).await;
    let claimed = store.claim(claim_params(&node, &job, 3)).await.expect("claim").running;
    assert_eq!(times(&claimed), at[..3], "the oldest due run first");

    let mut pages = Vec::new();
    let mut after = None;
    loop {
        let params =
            ExecutionListParams { job: Some(job.clone()), after, limit: 3, ..Default::default() };
        let page = store.execution_list(params).await.expect("list");
        pages.push(page.items.iter().map(|e| e.id).collect::<Vec<_>>());
        match page.next {
            Some(cursor) => after = Some(cursor),
            None => break,
        }
        assert!(pages.len() < 10, "the cursor must move on");
    }
    assert_eq!(pages.iter().map(Vec::len).collect::<Vec<_>>(), [3, 3, 1]);
    let ids: Vec<i64> = pages.concat();
    assert!(ids.windows(2).all(|w| w[0] < w[1]), "ascending ids: {ids:?}");
    let all: Vec<i64> = executions(&*store, &job).await.iter().map(|e| e.id).collect();
    assert_eq!(ids.iter().collect::<BTreeSet<_>>(), all.iter().collect::<BTreeSet<_>>());

    let list =
        |status: Option<ExecutionStatus>, since: Option<StoreTime>, until: Option<StoreTime>| {
            let params = ExecutionListParams {
                job: Some(job.clone()),
                status,
                since,
                until,
                ..Default::default()
            };
            let store = Arc::clone(&store);
            async move { store.execution_list(params).await.expect("list").items }
        };
    let running = list(Some(ExecutionStatus::Running), None, None).await;
    assert_eq!(times(&running), at[..3]);
    let scheduled = list(Some(ExecutionStatus::Scheduled), None, None).await;
    assert_eq!(times(&scheduled), at[3..]);
    let window = list(None, Some(at[2]), Some(at[5])).await;
    assert_eq!(times(&window), at[2..5], "since is inclusive, until exclusive");
    let none = list(Some(ExecutionStatus::Succeeded), None, None).await;
    assert_eq!(none, Vec::new());
}

/// Jobs page by id with a keyset cursor.
pub async fn job_list_pages_by_id(h: &dyn JobHarness) {
    let store = h.store().await;
    let mut mine = Vec::new();
    for _ in 0..3 {
        mine.push(register(&*store, "pages", allow()).await);
    }
    let mut seen = Vec::new();
    let mut after = None;
    loop {
        let page = store
            .job_list(JobListParams { after, limit: 2, ..JobListParams::default() })
            .await
            .expect("job_list");
        assert!(page.items.len() <= 2);
        seen.extend(page.items);
        match page.next {
            Some(cursor) => after = Some(cursor),
            None => break,
        }
    }
    assert!(seen.windows(2).all(|w| w[0].id < w[1].id), "ascending ids");
    let names: Vec<&JobName> = seen.iter().map(Job::name).filter(|n| mine.contains(n)).collect();
    assert_eq!(names, mine.iter().collect::<Vec<_>>(), "every job once, in registration order");
}

/// Listing with `updated_since` answers the jobs registered, changed or controlled at or after
/// that instant, and not the others.
pub async fn job_list_answers_what_changed_since(h: &dyn JobHarness) {
    let store = h.store().await;
    let quiet = register(&*store, "quiet", allow()).await;
    let paused = register(&*store, "paused", allow()).await;
    let before = store.job_get(&paused).await.expect("get").expect("registered").updated_at;
    wait_past(&*store, before).await;
    let since = store.now().await.expect("now");
    store.job_set_paused(&paused, true).await.expect("pause");
    let fresh = register(&*store, "fresh", allow()).await;
    let params = JobListParams { limit: 1000, updated_since: Some(since), ..Default::default() };
    let listed: Vec<JobName> = store
        .job_list(params)
        .await
        .expect("job_list")
        .items
        .iter()
        .map(|j| j.name().clone())
        .collect();
    assert!(listed.contains(&paused), "a job paused since: {listed:?}");
    assert!(listed.contains(&fresh), "a job registered since: {listed:?}");
    assert!(!listed.contains(&quiet), "a job unchanged since: {listed:?}");
}

fn prune_params(job: &JobName, retention: Retention, batch: u32) -> PruneParams {
    PruneParams { job: job.clone(), retention, batch }
}

/// Prune keeps the newest `keep_succeeded` succeeded and `keep_failed` other final
/// executions, deletes at most `batch` per call, and never deletes a live execution, the
/// record with the latest scheduled instant, or the one `job_last_fires` reads.
pub async fn prune_keeps_by_retention_and_never_the_last_record(h: &dyn JobHarness) {
    let store = h.store().await;
    let job = register(&*store, "prune", allow()).await;
    let node = unique_holder("node");
    let base = past(&*store).await;
    let at: Vec<StoreTime> = (1..=6).map(|i| plus(base, i * 60)).collect();
    record_each(&*store, &job, &at).await;
    let running = claim_running(&*store, &node, &job, &at).await;
    for (i, execution) in running.iter().enumerate() {
        let status = if i < 4 { ExecutionStatus::Succeeded } else { ExecutionStatus::Failed };
        complete(&*store, execution, status).await;
    }
    let live_at = plus(base, 420);
    let later = plus(store.now().await.unwrap(), 3_600);
    assert_eq!(record(&*store, vec![NewFire { due_at: later, ..fire(&job, live_at) }]).await, 1);

    let counts = Retention::default().with_counts(2, 1);
    assert_eq!(store.prune(prune_params(&job, counts, 100)).await.unwrap(), 3);
    let left = times(&executions(&*store, &job).await);
    assert_eq!(left, [at[2], at[3], at[5], live_at], "the newest 2 succeeded, the newest failed");
    assert_eq!(store.prune(prune_params(&job, counts, 100)).await.unwrap(), 0);

    let nothing = Retention::default().with_counts(0, 0);
    let mut deleted = 0;
    loop {
        let n = store.prune(prune_params(&job, nothing, 1)).await.unwrap();
        assert!(n <= 1, "at most batch per call");
        if n == 0 {
            break;
        }
        deleted += n;
    }
    assert_eq!(deleted, 3);
    let live = at_time(&*store, &job, live_at).await;
    assert_eq!(live.status, ExecutionStatus::Scheduled, "a live execution is never deleted");

    assert!(store.request_cancel(live.id).await.unwrap());
    assert_eq!(store.prune(prune_params(&job, nothing, 100)).await.unwrap(), 0);
    assert_eq!(times(&executions(&*store, &job).await), [live_at], "the newest record stays");

    let manual =
        recorded(store.trigger(trigger_params(&job, None, Some(plus(base, 600)))).await.unwrap());
    assert!(store.request_cancel(manual.id).await.unwrap());
    assert_eq!(store.prune(prune_params(&job, nothing, 100)).await.unwrap(), 0);
    assert_eq!(times(&executions(&*store, &job).await), [live_at, plus(base, 600)]);
    let last: HashMap<JobName, StoreTime> =
        store.job_last_fires().await.unwrap().into_iter().collect();
    assert_eq!(last.get(&job), Some(&live_at), "the scheduler still knows where the job stopped");
}

/// Prune deletes executions finished longer ago than `max_age` (store clock), whatever the
/// counts, but never the job's newest record.
pub async fn prune_deletes_by_age(h: &dyn JobHarness) {
    let store = h.store().await;
    let job = register(&*store, "prune-age", allow()).await;
    let node = unique_holder("node");
    let base = past(&*store).await;
    let at = [base, plus(base, 60)];
    record_each(&*store, &job, &at).await;
    let mut finished = Vec::new();
    for execution in claim_running(&*store, &node, &job, &at).await {
        let done = complete(&*store, &execution, ExecutionStatus::Succeeded).await.execution;
        finished.push(done.finished_at.expect("finished"));
    }
    let hour = Retention::default().with_max_age(Duration::from_secs(3_600));
    assert_eq!(store.prune(prune_params(&job, hour, 100)).await.unwrap(), 0, "nothing that old");
    let second = Duration::from_secs(1);
    wait_past(&*store, finished.iter().max().unwrap().saturating_add(second)).await;
    let aged = Retention::default().with_max_age(second);
    assert_eq!(store.prune(prune_params(&job, aged, 100)).await.unwrap(), 1);
    assert_eq!(times(&executions(&*store, &job).await), [at[1]], "the newest record stays");
}

/// A newly due execution wakes a subscribed worker, when the backend can notify (the feed
/// must be live once `subscribe_due` returns), and a claim answers the store's clock and the
/// next due instant of the claimed jobs only.
pub async fn due_executions_wake_workers(h: &dyn JobHarness) {
    let store = h.store().await;
    let job = register(&*store, "due", allow()).await;
    let other = register(&*store, "due-other", allow()).await;
    let node = unique_holder("node");
    let feed = store.subscribe_due().await.expect("subscribe_due");
    let base = past(&*store).await;
    let later = plus(base, 4 * 3_600);
    record(&*store, vec![fire(&job, base), fire(&job, later), fire(&other, plus(base, 60))]).await;
    if let Some(mut feed) = feed {
        tokio::time::timeout(PATIENCE, feed.next())
            .await
            .expect("no wake-up after recording a due fire")
            .expect("the feed works");
    }
    let claimed = claim(&*store, &node, &job).await;
    assert_eq!(times(&claimed.running), [base], "only the due fire runs");
    assert_eq!(claimed.next_due, Some(later), "the next due instant of the claimed job");
    assert!(claimed.now >= base && claimed.now < later, "store clock {}", claimed.now);
    let idle = claim(&*store, &node, &job).await;
    assert!(idle.running.is_empty() && idle.settled.is_empty(), "nothing more is due");
    assert_eq!(idle.next_due, Some(later), "a claim that takes nothing still answers it");
}

/// Bad input fails with a clear kind and changes nothing: page sizes and claim limits out of
/// range, unknown jobs, completion with a status that is not final, an invalid policy.
pub async fn bad_input_changes_nothing(h: &dyn JobHarness) {
    let store = h.store().await;
    let job = register(&*store, "bad", allow()).await;
    let absent = unique_job("absent");
    let node = unique_holder("node");
    let base = past(&*store).await;
    for limit in [0, 1001] {
        let params = ExecutionListParams { limit, ..Default::default() };
        assert_kind(store.execution_list(params).await, ErrorKind::InvalidInput, "page size");
        let params = JobListParams { limit, ..JobListParams::default() };
        assert_kind(store.job_list(params).await, ErrorKind::InvalidInput, "page size");
        let params = claim_params(&node, &job, limit);
        assert_kind(store.claim(params).await, ErrorKind::InvalidInput, "claim limit");
    }

    let err = store.trigger(trigger_params(&absent, None, None)).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::NotFound, "{err}");
    assert!(err.to_string().contains(absent.as_str()), "the error names the job: {err}");
    let err = store.job_set_paused(&absent, true).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::NotFound, "{err}");
    assert!(err.to_string().contains(absent.as_str()), "the error names the job: {err}");
    assert_kind(store.job_skip_through(&absent, base).await, ErrorKind::NotFound, "skip unknown");
    let fires = vec![fire(&job, base), fire(&absent, base)];
    let params = RecordFiresParams { fires, missed: Vec::new() };
    assert_kind(store.record_fires(params).await, ErrorKind::NotFound, "a fire of an unknown job");
    let run =
        MissedFires { job: absent.clone(), first: base, last: base, count: 1, reason: "x".into() };
    let params = RecordFiresParams { fires: vec![fire(&job, base)], missed: vec![run] };
    assert_kind(
        store.record_fires(params).await,
        ErrorKind::NotFound,
        "a missed run of an unknown job",
    );
    assert_eq!(store.job_get(&absent).await.unwrap(), None);
    assert_eq!(executions(&*store, &absent).await, Vec::new());
    assert_eq!(executions(&*store, &job).await, Vec::new(), "a failed batch records nothing");

    record_each(&*store, &job, &[base]).await;
    let running = claim_running(&*store, &node, &job, &[base]).await.remove(0);
    let before = get(&*store, running.id).await;
    for status in [
        ExecutionStatus::Scheduled,
        ExecutionStatus::Running,
        ExecutionStatus::Abandoned,
        ExecutionStatus::Skipped,
        ExecutionStatus::Missed,
    ] {
        let result = store.complete(complete_params(&running, status)).await;
        assert_kind(result, ErrorKind::InvalidInput, &format!("completing as {status}"));
    }
    assert_eq!(get(&*store, running.id).await, before);

    let invalid = allow().with_retry(RetryPolicy::default().with_max_attempts(0));
    let name = unique_job("invalid");
    let result = store.job_upsert(definition(&name, invalid)).await;
    assert_kind(result, ErrorKind::InvalidInput, "an invalid policy");
    assert_eq!(store.job_get(&name).await.unwrap(), None);
}
