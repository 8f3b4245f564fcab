//! Cases on how executions end: completion, retries, triggers, heartbeats, cancellation and
//! rescue (I6).

use std::collections::HashMap;
use std::time::Duration;

use baton_core::job::{CompleteParams, NewFire, RescueParams, TriggerParams};
use baton_core::{ErrorKind, Execution, ExecutionStatus, FireKey, RetryPolicy, Trigger};

use super::JobHarness;
use super::support::*;
use crate::conformance::unique_holder;

/// Completing under a token that is not the execution's current one fails with `LeaseLost`
/// and changes nothing, also after the execution finished.
pub async fn complete_with_a_stale_token_changes_nothing(h: &dyn JobHarness) {
    let store = h.store().await;
    let job = register(&*store, "stale", allow()).await;
    let node = unique_holder("node");
    let base = past(&*store).await;
    record_each(&*store, &job, &[base, plus(base, 60)]).await;
    let running = claim_running(&*store, &node, &job, &[base, plus(base, 60)]).await;
    let (execution, other) = (&running[0], &running[1]);
    let before = get(&*store, execution.id).await;

    let stale = CompleteParams {
        token: token(other),
        ..complete_params(execution, ExecutionStatus::Failed)
    };
    let stale = CompleteParams { output: Some("stale".into()), ..stale };
    let err = store.complete(stale).await.expect_err("a foreign token must not complete");
    assert_eq!(err.kind(), ErrorKind::LeaseLost, "{err}");
    assert!(err.to_string().contains(&execution.id.to_string()), "the error names it: {err}");
    assert_eq!(get(&*store, execution.id).await, before, "a refused completion changes nothing");
    let output = store.execution_output(execution.id).await.expect("read the output");
    assert_eq!(output, None, "a refused completion keeps no output");

    let params = CompleteParams {
        detail: Some("done".into()),
        output: Some("line 1\nline 2 ✓\n".into()),
        ..complete_params(execution, ExecutionStatus::Succeeded)
    };
    let done = store.complete(params).await.expect("complete").execution;
    assert_eq!((done.status, done.detail.as_deref()), (ExecutionStatus::Succeeded, Some("done")));
    assert_eq!(done.token, execution.token);
    assert!(done.finished_at.is_some());
    assert_eq!(get(&*store, execution.id).await, done);
    let output = store.execution_output(execution.id).await.expect("read the output");
    assert_eq!(output.as_deref(), Some("line 1\nline 2 ✓\n"), "the output is kept");
    let none = store.execution_output(other.id).await.expect("read the output");
    assert_eq!(none, None, "a running execution has no output");

    let again = store.complete(complete_params(execution, ExecutionStatus::Failed)).await;
    assert_kind(again, ErrorKind::LeaseLost, "completing a finished execution");
    assert_eq!(get(&*store, execution.id).await, done, "a finished execution never changes");
}

/// A failed attempt of a job with retries records the next attempt, due after the backoff,
/// under the same fire; it runs under a new token, until the attempts run out.
pub async fn a_failed_attempt_is_retried_after_its_backoff(h: &dyn JobHarness) {
    let store = h.store().await;
    let node = unique_holder("node");
    let base = past(&*store).await;
    let hour = Duration::from_secs(3_600);
    let slow =
        allow().with_retry(RetryPolicy::default().with_max_attempts(2).with_backoff(hour, hour));
    let slow = register(&*store, "retry-slow", slow).await;
    record_each(&*store, &slow, &[base]).await;
    let first = claim_running(&*store, &node, &slow, &[base]).await.remove(0);
    let params = CompleteParams {
        detail: Some("boom".into()),
        output: None,
        ..complete_params(&first, ExecutionStatus::Failed)
    };
    let completed = store.complete(params).await.expect("complete");
    assert_eq!(completed.execution.detail.as_deref(), Some("boom"));
    let retry = completed.retry.expect("a retry is recorded");
    let finished = completed.execution.finished_at.expect("finished");
    assert_eq!((retry.job.clone(), retry.fire_key.clone()), (slow.clone(), first.fire_key.clone()));
    assert_eq!((retry.scheduled_at, retry.attempt, retry.trigger), (base, 2, Trigger::Retry));
    assert_eq!((retry.status, retry.token), (ExecutionStatus::Scheduled, None));
    assert_eq!(retry.due_at, finished.saturating_add(hour), "due after the backoff");
    assert_eq!(get(&*store, retry.id).await, retry);
    claim_running(&*store, &node, &slow, &[]).await;

    let millis = Duration::from_millis(1);
    let fast = allow()
        .with_retry(RetryPolicy::default().with_max_attempts(3).with_backoff(millis, millis));
    let fast = register(&*store, "retry-fast", fast).await;
    record_each(&*store, &fast, &[base]).await;
    let mut attempt = claim_running(&*store, &node, &fast, &[base]).await.remove(0);
    for (n, status) in [(2, ExecutionStatus::Failed), (3, ExecutionStatus::TimedOut)] {
        let retry = complete(&*store, &attempt, status).await.retry.expect("a retry");
        assert_eq!((retry.attempt, retry.fire_key.clone()), (n, attempt.fire_key.clone()));
        wait_past(&*store, retry.due_at).await;
        let next = claim_running(&*store, &node, &fast, &[base]).await.remove(0);
        assert_eq!((next.id, next.attempt), (retry.id, n));
        assert!(token(&next) > token(&attempt), "a new attempt runs under a greater token");
        attempt = next;
    }
    let last = complete(&*store, &attempt, ExecutionStatus::Failed).await;
    assert_eq!(last.retry, None, "no attempt after max_attempts");
    let statuses: Vec<(u32, ExecutionStatus)> =
        executions(&*store, &fast).await.iter().map(|e| (e.attempt, e.status)).collect();
    use ExecutionStatus::{Failed, TimedOut};
    assert_eq!(statuses, [(1, Failed), (2, TimedOut), (3, Failed)], "one record per attempt");
}

/// A succeeded execution is never claimed again, gets no retry, and recording its fire again
/// inserts nothing (I6).
pub async fn a_succeeded_execution_never_runs_again(h: &dyn JobHarness) {
    let store = h.store().await;
    let retry = RetryPolicy::default()
        .with_max_attempts(3)
        .with_backoff(Duration::from_millis(1), Duration::from_millis(1));
    let job = register(&*store, "succeeded", allow().with_retry(retry)).await;
    let node = unique_holder("node");
    let base = past(&*store).await;
    record_each(&*store, &job, &[base]).await;
    let execution = claim_running(&*store, &node, &job, &[base]).await.remove(0);
    let done = complete(&*store, &execution, ExecutionStatus::Succeeded).await;
    assert_eq!(done.retry, None, "success is never retried");
    claim_running(&*store, &node, &job, &[]).await;
    assert_eq!(record(&*store, vec![fire(&job, base)]).await, 0);
    claim_running(&*store, &node, &job, &[]).await;
    let stored = executions(&*store, &job).await;
    assert_eq!(stored, vec![done.execution], "one record, still succeeded");
}

/// Triggering a fire records its first attempt; triggering it again answers the latest
/// attempt while it is scheduled, running or succeeded, and records a new attempt (with the
/// fire's scheduled instant) once it failed.
pub async fn trigger_answers_existing_or_records_a_new_attempt(h: &dyn JobHarness) {
    let store = h.store().await;
    let job = register(&*store, "trigger", allow()).await;
    let node = unique_holder("node");
    let key = unique_key("run");
    let first =
        recorded(store.trigger(trigger_params(&job, Some(key.clone()), None)).await.unwrap());
    let now = store.now().await.unwrap();
    assert_eq!((first.fire_key.clone(), first.attempt), (key.clone(), 1));
    assert_eq!((first.trigger, first.status), (Trigger::Manual, ExecutionStatus::Scheduled));
    assert!(first.due_at <= now && first.scheduled_at <= now, "due at once: {first:?}");
    let same =
        existing(store.trigger(trigger_params(&job, Some(key.clone()), None)).await.unwrap());
    assert_eq!(same, first, "a scheduled fire is answered as it is");
    let running = claim(&*store, &node, &job).await.running;
    assert_eq!(running.iter().map(|e| e.id).collect::<Vec<_>>(), [first.id]);
    let same =
        existing(store.trigger(trigger_params(&job, Some(key.clone()), None)).await.unwrap());
    assert_eq!((same.id, same.status), (first.id, ExecutionStatus::Running));
    complete(&*store, &running[0], ExecutionStatus::Succeeded).await;
    let same =
        existing(store.trigger(trigger_params(&job, Some(key.clone()), None)).await.unwrap());
    assert_eq!((same.id, same.status), (first.id, ExecutionStatus::Succeeded));

    let base = past(&*store).await;
    let key = unique_key("retry");
    let params = trigger_params(&job, Some(key.clone()), Some(plus(base, 30)));
    let failed = recorded(store.trigger(params).await.unwrap());
    assert_eq!((failed.fire_key.clone(), failed.scheduled_at), (key.clone(), plus(base, 30)));
    let running = claim(&*store, &node, &job).await.running;
    assert_eq!(running.iter().map(|e| e.id).collect::<Vec<_>>(), [failed.id]);
    complete(&*store, &running[0], ExecutionStatus::Failed).await;
    let params = TriggerParams {
        trigger: Trigger::External,
        ..trigger_params(&job, Some(key.clone()), None)
    };
    let second = recorded(store.trigger(params).await.unwrap());
    assert_eq!((second.fire_key.clone(), second.attempt), (key, 2));
    assert_eq!((second.trigger, second.status), (Trigger::External, ExecutionStatus::Scheduled));
    assert_eq!(second.scheduled_at, failed.scheduled_at, "attempts share the fire's instant");
    assert!(second.id > failed.id);

    let at = plus(base, 7);
    let by_time = recorded(store.trigger(trigger_params(&job, None, Some(at))).await.unwrap());
    assert_eq!((by_time.fire_key.clone(), by_time.scheduled_at), (FireKey::at(at), at));
    record_each(&*store, &job, &[base]).await;
    let scheduled = existing(store.trigger(trigger_params(&job, None, Some(base))).await.unwrap());
    assert_eq!(
        (scheduled.trigger, scheduled.status),
        (Trigger::Schedule, ExecutionStatus::Scheduled)
    );
}

/// A trigger with `claim_for` answers an execution already running on that node under a new
/// token, which its heartbeat keeps.
pub async fn trigger_with_claim_for_runs_at_once(h: &dyn JobHarness) {
    let store = h.store().await;
    let job = register(&*store, "exec", allow()).await;
    let node = unique_holder("node");
    let base = past(&*store).await;
    record_each(&*store, &job, &[base]).await;
    let claimed = claim_running(&*store, &node, &job, &[base]).await.remove(0);
    let params = TriggerParams {
        claim_for: Some(node.clone()),
        trigger: Trigger::External,
        ..trigger_params(&job, Some(unique_key("exec")), None)
    };
    let running = recorded(store.trigger(params).await.expect("trigger"));
    assert_eq!((running.status, running.node.as_ref()), (ExecutionStatus::Running, Some(&node)));
    assert!(token(&running) > token(&claimed), "a new token, greater than any before");
    assert!(running.started_at.is_some());
    assert_eq!(running.heartbeat_at, running.started_at);
    assert_eq!(get(&*store, running.id).await, running);
    let beat = heartbeat(&*store, &node, &[(running.id, token(&running))]).await;
    assert_eq!((beat.lost, beat.cancel), (no_ids(), no_ids()));
    claim_running(&*store, &node, &job, &[]).await;
    complete(&*store, &running, ExecutionStatus::Succeeded).await;
}

/// A heartbeat keeps the executions running under the node's token and reports the others
/// as lost: a wrong token, another node, a finished execution, an unknown id.
pub async fn heartbeat_reports_lost_executions(h: &dyn JobHarness) {
    let store = h.store().await;
    let job = register(&*store, "heartbeat", allow()).await;
    let node = unique_holder("node");
    let base = past(&*store).await;
    record_each(&*store, &job, &[base, plus(base, 60)]).await;
    let running = claim_running(&*store, &node, &job, &[base, plus(base, 60)]).await;
    let (a, b) = (&running[0], &running[1]);
    let both = [(a.id, token(a)), (b.id, token(b))];
    let beat = heartbeat(&*store, &node, &both).await;
    assert_eq!((beat.lost, beat.cancel), (no_ids(), no_ids()));
    let beaten = get(&*store, a.id).await;
    assert!(beaten.heartbeat_at >= a.heartbeat_at, "{beaten:?}");
    assert_eq!(beaten.status, ExecutionStatus::Running);

    let wrong = heartbeat(&*store, &node, &[(a.id, token(b))]).await;
    assert_eq!(wrong.lost, [a.id], "a wrong token is lost");
    let other = heartbeat(&*store, &unique_holder("other"), &[(a.id, token(a))]).await;
    assert_eq!(other.lost, [a.id], "another node's heartbeat is lost");
    complete(&*store, b, ExecutionStatus::Succeeded).await;
    let after = heartbeat(&*store, &node, &both).await;
    assert_eq!((after.lost, after.cancel), (vec![b.id], no_ids()), "a finished one is lost");
    let unknown = heartbeat(&*store, &node, &[(i64::MAX, token(a))]).await;
    assert_eq!(unknown.lost, [i64::MAX]);
    assert_eq!(get(&*store, a.id).await.status, ExecutionStatus::Running);
}

/// Cancelling a running execution asks it to stop (seen in its heartbeat); cancelling a
/// scheduled one settles it cancelled; a finished or unknown one is left alone.
pub async fn request_cancel_reaches_running_and_scheduled_executions(h: &dyn JobHarness) {
    let store = h.store().await;
    let job = register(&*store, "cancel", allow()).await;
    let node = unique_holder("node");
    let base = past(&*store).await;
    let later = plus(store.now().await.unwrap(), 3_600);
    let fires = vec![fire(&job, base), NewFire { due_at: later, ..fire(&job, plus(base, 60)) }];
    assert_eq!(record(&*store, fires).await, 2);
    let running = claim_running(&*store, &node, &job, &[base]).await.remove(0);
    let waiting = at_time(&*store, &job, plus(base, 60)).await;

    assert!(store.request_cancel(running.id).await.unwrap());
    let asked = get(&*store, running.id).await;
    assert!(asked.cancel_requested && asked.status == ExecutionStatus::Running, "{asked:?}");
    let beat = heartbeat(&*store, &node, &[(running.id, token(&running))]).await;
    assert_eq!((beat.lost, beat.cancel), (no_ids(), vec![running.id]));

    assert!(store.request_cancel(waiting.id).await.unwrap());
    let cancelled = get(&*store, waiting.id).await;
    assert_eq!(cancelled.status, ExecutionStatus::Cancelled);
    assert_eq!(cancelled.detail.as_deref(), Some("cancelled before it started"));
    assert!(cancelled.finished_at.is_some());
    assert!(!store.request_cancel(waiting.id).await.unwrap(), "a final execution stays");

    complete(&*store, &running, ExecutionStatus::Cancelled).await;
    assert!(!store.request_cancel(running.id).await.unwrap());
    assert!(!store.request_cancel(i64::MAX).await.unwrap(), "an unknown id");
    assert_eq!(get(&*store, waiting.id).await, cancelled);
}

/// Rescue abandons a running execution whose heartbeat is older than `stale_after` (on the
/// store's clock) and records its retry when the policy allows one; an execution that keeps
/// heartbeating is left running; the abandoned attempt can neither heartbeat nor complete; a
/// rescue answers the oldest heartbeat still running.
pub async fn rescue_abandons_only_stale_executions(h: &dyn JobHarness) {
    let store = h.store().await;
    let hour = Duration::from_secs(3_600);
    let retried =
        allow().with_retry(RetryPolicy::default().with_max_attempts(2).with_backoff(hour, hour));
    let retried = register(&*store, "rescue-retried", retried).await;
    let single = register(&*store, "rescue-single", allow()).await;
    let alive = register(&*store, "rescue-alive", allow()).await;
    let (dead_node, live_node) = (unique_holder("dead"), unique_holder("live"));
    let base = past(&*store).await;
    let mut stale = Vec::new();
    for job in [&retried, &single] {
        record_each(&*store, job, &[base]).await;
        stale.push(claim_running(&*store, &dead_node, job, &[base]).await.remove(0));
    }
    record_each(&*store, &alive, &[base]).await;
    let live = claim_running(&*store, &live_node, &alive, &[base]).await.remove(0);
    let params = RescueParams { stale_after: RESCUE_STALE, limit: 1000 };
    let early = store.rescue(params).await.expect("rescue");
    let mine = [stale[0].id, stale[1].id, live.id];
    assert!(!early.abandoned.iter().any(|e| mine.contains(&e.id)), "fresh executions stay");
    let first_beat = stale.iter().chain([&live]).filter_map(|e| e.heartbeat_at).min();
    assert!(
        early.oldest_heartbeat.is_some_and(|oldest| Some(oldest) <= first_beat),
        "the oldest heartbeat left running {:?}, ours from {first_beat:?}",
        early.oldest_heartbeat
    );

    let last_beat = stale.iter().filter_map(|e| e.heartbeat_at).max().expect("heartbeats");
    let mut abandoned: HashMap<i64, Execution> = HashMap::new();
    let mut retries: Vec<Execution> = Vec::new();
    let deadline = tokio::time::Instant::now() + PATIENCE + RESCUE_STALE;
    while abandoned.len() < 2 {
        assert!(tokio::time::Instant::now() < deadline, "stale executions were never rescued");
        let beat = heartbeat(&*store, &live_node, &[(live.id, token(&live))]).await;
        assert_eq!(beat.lost, no_ids(), "a heartbeating execution is never rescued");
        if store.now().await.unwrap() <= last_beat.saturating_add(RESCUE_STALE) {
            tokio::time::sleep(Duration::from_millis(50)).await;
            continue;
        }
        let rescued = store.rescue(params).await.expect("rescue");
        let ours = |e: &&Execution| e.job == retried || e.job == single || e.job == alive;
        abandoned.extend(rescued.abandoned.iter().filter(ours).map(|e| (e.id, e.clone())));
        retries.extend(rescued.retries.iter().filter(ours).cloned());
    }
    assert_eq!(get(&*store, live.id).await.status, ExecutionStatus::Running);
    for execution in &stale {
        let gone = &abandoned[&execution.id];
        assert_eq!(gone.status, ExecutionStatus::Abandoned);
        let detail = gone.detail.as_deref().unwrap_or_default();
        assert!(
            detail.contains(dead_node.as_str()) && detail.contains("stopped heartbeating"),
            "{gone:?}"
        );
        assert!(gone.finished_at.is_some());
        assert_eq!(get(&*store, execution.id).await, *gone);
        let beat = heartbeat(&*store, &dead_node, &[(execution.id, token(execution))]).await;
        assert_eq!(beat.lost, [execution.id], "the abandoned attempt's heartbeat is lost");
        let late = store.complete(complete_params(execution, ExecutionStatus::Succeeded)).await;
        assert_kind(late, ErrorKind::LeaseLost, "the abandoned attempt completing");
    }
    assert_eq!(retries.len(), 1, "only the job with retries gets one: {retries:?}");
    let retry = &retries[0];
    let gone = &abandoned[&stale[0].id];
    assert_eq!(
        (retry.job.clone(), retry.fire_key.clone()),
        (retried.clone(), gone.fire_key.clone())
    );
    assert_eq!(
        (retry.attempt, retry.trigger, retry.status),
        (2, Trigger::Retry, ExecutionStatus::Scheduled)
    );
    assert_eq!(Some(retry.due_at), gone.finished_at.map(|at| at.saturating_add(hour)));
    assert_eq!(executions(&*store, &single).await.len(), 1, "no retry without a retry policy");
}
