//! Cases on claiming: exclusivity, order, controls and starting deadlines (I6).

use std::collections::{BTreeSet, HashMap};
use std::time::Duration;

use baton_core::job::{ClaimParams, NewFire};
use baton_core::{ExecutionStatus, FencingToken, HolderId, JobName, OverlapPolicy};

use super::JobHarness;
use super::support::*;
use crate::conformance::unique_holder;

/// A claim with `ahead` also takes executions not yet due whose start cannot be refused at
/// their instant, starting them at that instant; one of a job that has an execution running
/// or is paused waits (it is never settled before it is due).
pub async fn claims_ahead_only_what_cannot_be_refused(h: &dyn JobHarness) {
    let store = h.store().await;
    let forbid = register(&*store, "ahead-forbid", overlap(OverlapPolicy::Forbid)).await;
    let allowing = register(&*store, "ahead-allow", allow()).await;
    let paused = register(&*store, "ahead-paused", allow()).await;
    let node = unique_holder("node");
    let now = store.now().await.expect("store time");
    let (soon, later) = (plus(now, 600), plus(now, 1_200));
    let fires =
        [(&forbid, soon), (&forbid, later), (&allowing, soon), (&allowing, later), (&paused, soon)];
    record(&*store, fires.iter().map(|(job, at)| fire(job, *at)).collect()).await;
    // Paused once recorded: a fire of a job paused when it is recorded is skipped at once.
    store.job_set_paused(&paused, true).await.expect("pause");
    let hour = Duration::from_secs(3_600);
    let ahead = |job: &JobName| ClaimParams { ahead: hour, ..claim_params(&node, job, 10) };

    let claimed = store.claim(ahead(&forbid)).await.expect("claim ahead");
    assert_eq!(times(&claimed.running), [soon], "the first fire of a free forbid job");
    assert_eq!(claimed.settled, Vec::new(), "nothing is settled before it is due");
    assert_eq!(claimed.running[0].started_at, Some(soon), "it starts at its instant");
    assert_eq!(claimed.next_due, Some(later), "the second waits for the first");
    let again = store.claim(ahead(&forbid)).await.expect("claim ahead again");
    assert!(again.running.is_empty() && again.settled.is_empty(), "{again:?}");

    let claimed = store.claim(ahead(&allowing)).await.expect("claim ahead");
    assert_eq!(times(&claimed.running), [soon, later], "overlap allow never refuses");
    let claimed = store.claim(ahead(&paused)).await.expect("claim ahead");
    assert!(claimed.running.is_empty() && claimed.settled.is_empty(), "{claimed:?}");
    assert_eq!(claimed.next_due, Some(soon));
    let due_only = store.claim(claim_params(&node, &allowing, 10)).await.expect("claim");
    assert!(due_only.running.is_empty(), "without ahead nothing is claimed before it is due");
}

/// Eight workers, each on its own handle, claim 200 due executions at once: each is claimed
/// exactly once, under a token of its own, and each worker's tokens grow claim by claim (I6).
pub async fn racing_workers_claim_each_execution_once(h: &dyn JobHarness) {
    let store = h.store().await;
    let job = register(&*store, "workers", allow()).await;
    let base = past(&*store).await;
    assert_eq!(record(&*store, (0..200).map(|i| fire(&job, plus(base, i))).collect()).await, 200);
    let mut tasks = Vec::new();
    for w in 0..8 {
        let store = h.store().await;
        let job = job.clone();
        tasks.push(tokio::spawn(async move {
            let node = unique_holder(&format!("worker{w}"));
            let mut claims = Vec::new();
            loop {
                let claimed = store.claim(claim_params(&node, &job, 10)).await.expect("claim");
                assert_eq!(claimed.settled, Vec::new(), "overlap allow settles nothing");
                assert!(claimed.running.len() <= 10, "a claim runs at most its limit");
                if claimed.running.is_empty() {
                    return (node, claims);
                }
                claims.push(claimed.running);
            }
        }));
    }
    let mut workers = Vec::new();
    for task in tasks {
        workers.push(task.await.expect("worker task"));
    }
    // A worker may stop while another still holds rows it could not see: sweep the rest.
    let sweeper = unique_holder("sweeper");
    let mut swept = Vec::new();
    loop {
        let claimed = claim(&*store, &sweeper, &job).await;
        if claimed.running.is_empty() {
            break;
        }
        swept.push(claimed.running);
    }
    workers.push((sweeper, swept));

    let mut owners: HashMap<i64, (HolderId, FencingToken)> = HashMap::new();
    let mut tokens = BTreeSet::new();
    for (node, claims) in &workers {
        for pair in claims.windows(2) {
            let before = pair[0].iter().map(token).max();
            let after = pair[1].iter().map(token).min();
            assert!(before < after, "{node}: tokens must grow claim by claim");
        }
        for execution in claims.iter().flatten() {
            assert_eq!(execution.node.as_ref(), Some(node));
            let previous = owners.insert(execution.id, (node.clone(), token(execution)));
            assert!(previous.is_none(), "execution {} claimed twice", execution.id);
            assert!(tokens.insert(token(execution)), "token {} issued twice", token(execution));
        }
    }
    assert_eq!(owners.len(), 200, "every execution claimed");
    for execution in executions(&*store, &job).await {
        let (node, token) = &owners[&execution.id];
        assert_eq!(execution.status, ExecutionStatus::Running);
        assert_eq!((execution.node.as_ref(), execution.token), (Some(node), Some(*token)));
    }
}

/// A claim takes only due executions of the jobs it names, by due instant, up to its limit.
pub async fn claim_takes_its_jobs_due_executions_oldest_due_first(h: &dyn JobHarness) {
    let store = h.store().await;
    let (mine, other) = (
        register(&*store, "claim-mine", allow()).await,
        register(&*store, "claim-other", allow()).await,
    );
    let node = unique_holder("node");
    let base = past(&*store).await;
    let later = plus(store.now().await.unwrap(), 3_600);
    let fires = vec![
        NewFire { due_at: plus(base, 180), ..fire(&mine, base) },
        fire(&mine, plus(base, 120)),
        fire(&mine, plus(base, 60)),
        NewFire { due_at: later, ..fire(&mine, plus(base, 240)) },
        fire(&other, base),
    ];
    assert_eq!(record(&*store, fires).await, 5);
    let mut first = store.claim(claim_params(&node, &mine, 2)).await.expect("claim").running;
    first.sort_by_key(|e| e.scheduled_at);
    assert_eq!(times(&first), [plus(base, 60), plus(base, 120)], "the two due first");
    let second = claim(&*store, &node, &mine).await.running;
    assert_eq!(times(&second), [base], "then the one due later");
    assert_eq!(second[0].due_at, plus(base, 180));
    claim_running(&*store, &node, &mine, &[]).await;
    assert_eq!(at_time(&*store, &mine, plus(base, 240)).await.status, ExecutionStatus::Scheduled);
    assert_eq!(at_time(&*store, &other, base).await.status, ExecutionStatus::Scheduled);
}

/// A paused job's fires are recorded skipped; its fire recorded before the pause is settled
/// skipped at claim; once resumed, its fires run again.
pub async fn a_paused_job_skips_its_fires(h: &dyn JobHarness) {
    let store = h.store().await;
    let job = register(&*store, "paused", allow()).await;
    let node = unique_holder("node");
    let base = past(&*store).await;
    record_each(&*store, &job, &[base]).await;
    store.job_set_paused(&job, true).await.expect("pause");
    record_each(&*store, &job, &[plus(base, 60)]).await;
    let skipped = at_time(&*store, &job, plus(base, 60)).await;
    assert_eq!(skipped.status, ExecutionStatus::Skipped);
    assert_eq!(skipped.detail.as_deref(), Some("job is paused"));
    assert!(skipped.finished_at.is_some(), "a skipped record is final");

    let claimed = claim(&*store, &node, &job).await;
    assert_eq!(claimed.running, Vec::new(), "nothing of a paused job runs");
    assert_eq!(times(&claimed.settled), [base]);
    let settled = &claimed.settled[0];
    assert_eq!(settled.status, ExecutionStatus::Skipped);
    assert!(settled.detail.as_deref().is_some_and(|d| d.contains("paused")), "{settled:?}");
    assert_eq!(get(&*store, settled.id).await, *settled);

    store.job_set_paused(&job, false).await.expect("resume");
    record_each(&*store, &job, &[plus(base, 120)]).await;
    claim_running(&*store, &node, &job, &[plus(base, 120)]).await;
}

/// Fires at or before `skip_through` are skipped (`skip-next`), whether recorded after the
/// operator asked or before (then at claim); later fires run.
pub async fn skip_through_skips_exactly_the_fires_up_to_it(h: &dyn JobHarness) {
    let store = h.store().await;
    let job = register(&*store, "skip", allow()).await;
    let node = unique_holder("node");
    let base = past(&*store).await;
    record_each(&*store, &job, &[base]).await;
    store.job_skip_through(&job, plus(base, 120)).await.expect("skip through");
    let later = [60, 120, 180].map(|s| fire(&job, plus(base, s)));
    assert_eq!(record(&*store, later.to_vec()).await, 3);
    for s in [60, 120] {
        let skipped = at_time(&*store, &job, plus(base, s)).await;
        assert_eq!(skipped.status, ExecutionStatus::Skipped, "the fire at +{s}s");
        assert_eq!(skipped.detail.as_deref(), Some("skip-next"));
    }
    assert_eq!(at_time(&*store, &job, plus(base, 180)).await.status, ExecutionStatus::Scheduled);

    let claimed = claim(&*store, &node, &job).await;
    assert_eq!(times(&claimed.running), [plus(base, 180)]);
    assert_eq!(times(&claimed.settled), [base], "the fire recorded before is skipped at claim");
    assert_eq!(claimed.settled[0].status, ExecutionStatus::Skipped);
    assert_eq!(claimed.settled[0].detail.as_deref(), Some("skip-next"));
}

/// A fire claimed later than its starting deadline is recorded missed instead of running.
pub async fn a_fire_past_its_starting_deadline_is_missed(h: &dyn JobHarness) {
    let store = h.store().await;
    let policy = allow().with_starting_deadline(Some(Duration::from_secs(600)));
    let job = register(&*store, "deadline", policy).await;
    let node = unique_holder("node");
    let base = past(&*store).await;
    let now = store.now().await.unwrap();
    record_each(&*store, &job, &[base, now]).await;
    let claimed = claim(&*store, &node, &job).await;
    assert_eq!(times(&claimed.running), [now], "the fire due now runs");
    assert_eq!(times(&claimed.settled), [base], "the fire due two hours ago is missed");
    let missed = &claimed.settled[0];
    assert_eq!(missed.status, ExecutionStatus::Missed);
    assert!(missed.finished_at.is_some());
    let detail = missed.detail.as_deref().unwrap_or_default();
    assert!(detail.contains("starting deadline"), "{missed:?}");
}
