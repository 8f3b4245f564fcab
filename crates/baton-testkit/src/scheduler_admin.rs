//! Admin calls during the scheduler workload (W4), with three nodes as separate processes:
//! what an operator does to a running cluster must keep every fire once.

use baton::LeaseName;
use baton::core::job::{TriggerOutcome, TriggerParams};
use baton::core::{Execution, ExecutionStatus, JobName, Trigger};

use crate::faults::PATIENCE;
use crate::node::{SLOW, SLOW_RUN, TICK};
use crate::node_args::NodeSetup;
use crate::scheduler_faults::{Cluster, Measured, SCHEDULER_LEASE};
use crate::terms;

/// While three nodes run `tick` and `slow`: `tick` is paused, then resumed; `slow` is run now;
/// the scheduler lease is force-released; the leader is asked to step down.
///
/// - the fires due while `tick` was paused are recorded as skipped, and none of them runs;
/// - the run-now execution runs once and succeeds;
/// - the forced release and the step-down each end the term at once: another term begins
///   under a greater token, well before the lease could have expired;
/// - the audit of the whole window is clean, the ledger has no stale write, and every start
///   a node reported is a claim on record ([`Cluster::finish`](crate::scheduler_faults::Cluster::finish)).
pub async fn admin_calls_keep_every_fire_once(setup: &NodeSetup) -> Measured {
    let mut cluster = Cluster::new(setup).await;
    let mut measured = Measured::default();
    cluster.start_led_by_a().await;
    let ticks = cluster.wait_ticks(0, 2).await;

    let tick: JobName = TICK.parse().expect("a job name");
    cluster.jobs().job_set_paused(&tick, true).await.expect("pausing tick");
    let paused = |e: &Execution| e.job == tick && e.status == ExecutionStatus::Skipped;
    cluster
        .wait_record("a tick fire skipped for the pause", PATIENCE, |executions| {
            executions.iter().find(|e| paused(e)).map(|_| ())
        })
        .await;
    cluster.jobs().job_set_paused(&tick, false).await.expect("resuming tick");
    let ticks = cluster.wait_ticks(ticks, 2).await;

    let slow: JobName = SLOW.parse().expect("a job name");
    let run_now = TriggerParams {
        job: slow.clone(),
        fire_key: None,
        scheduled_at: None,
        trigger: Trigger::Manual,
        claim_for: None,
    };
    let run_now = match cluster.jobs().trigger(run_now).await.expect("running slow now") {
        TriggerOutcome::Recorded(execution) => execution,
        existing => panic!("run-now found a fire on record: {existing:?}"),
    };
    cluster
        .wait_record("the run-now execution's success", PATIENCE + SLOW_RUN, |executions| {
            let done = executions.iter().find(|e| e.id == run_now.id)?;
            (done.status == ExecutionStatus::Succeeded).then_some(())
        })
        .await;

    let lease: LeaseName = SCHEDULER_LEASE.parse().expect("a lease name");
    let (_, forced) = cluster.leader().await;
    let leases = cluster.leases().clone();
    let (_, takeover) = terms::force_release(&*leases, &lease, forced, setup.ttl, PATIENCE).await;
    measured.failover = Some(takeover);

    let (leader, stepping_down) = cluster.leader().await;
    let asked_at = terms::step_down(cluster.node(&leader), &*leases).await;
    let after_step_down = cluster.wait_leader(stepping_down, PATIENCE).await;
    let handover = after_step_down.acquired_at.saturating_since(asked_at);
    assert!(handover < setup.ttl, "handed over {handover:?} after the step-down");
    cluster.wait_ticks(ticks, 2).await;

    let executions = cluster.executions().await;
    for skipped in executions.iter().filter(|e| paused(e)) {
        let ran = executions.iter().find(|e| {
            e.job == tick && e.scheduled_at == skipped.scheduled_at && e.started_at.is_some()
        });
        assert!(ran.is_none(), "a fire skipped for the pause ran: {skipped:?} and {ran:?}");
    }
    let manual = executions.iter().filter(|e| e.job == slow && e.trigger == Trigger::Manual);
    assert_eq!(manual.count(), 1, "the run-now execution ran once: {executions:#?}");
    cluster.finish(&mut measured).await;
    measured
}
