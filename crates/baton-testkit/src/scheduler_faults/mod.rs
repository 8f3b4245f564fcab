//! Fault scenarios for the scheduler with three nodes as separate processes
//! (`baton-test-node`), shared by every backend's scheduler fault tests.
//!
//! Each scenario waits on the nodes' events or on the store's record (polled, with a timeout),
//! never on a sleep, and ends like `baton audit`: the fires every job owed between the first
//! fire on record and the last are recomputed and compared with the record (no duplicate, no
//! unexplained missing fire), and the ledger is checked (no stale write accepted). Every
//! scenario also checks invariant I6 on the whole record and on the nodes' reports (see
//! [`Cluster::finish`]).

mod cluster;

use baton::ChangeReason;
use baton::core::{Execution, ExecutionStatus, Trigger};

pub use cluster::{Cluster, Measured, SCHEDULER_LEASE};
use cluster::{run_of_any, succeeded, token_u64};

use crate::faults::PATIENCE;
use crate::node::{self, Run, SLOW, TICK};
use crate::node_args::NodeSetup;
use crate::terms::token_of;

/// `kill -9` of the scheduler leader among three nodes: another node takes over within
/// TTL + retry, fires resume under it (those due meanwhile run late or are recorded with
/// their policy), and the audit of the whole window is clean.
pub async fn killed_leader_is_replaced_and_fires_resume(setup: &NodeSetup) -> Measured {
    let mut cluster = Cluster::new(setup).await;
    let mut measured = Measured::default();
    cluster.start_led_by_a().await;
    let ticks = cluster.wait_ticks(0, 3).await;
    let (leader, token) = cluster.leader().await;
    cluster.kill9(&leader).await;
    let (killed, killed_on_leases) = (cluster.now().await, cluster.lease_now().await);
    let lease = cluster.wait_leader(token, PATIENCE).await;
    let failover = lease.acquired_at.saturating_since(killed_on_leases);
    measured.failover = Some(failover);
    assert_ne!(lease.holder.as_ref().map(|h| h.as_str()), Some(leader.as_str()));
    let bound = setup.failover_bound();
    assert!(failover <= bound, "fail-over took {failover:?}, more than {bound:?}");
    cluster.assert_expired_takeover(&lease).await;
    let resumed = cluster
        .wait_record("a tick scheduled after the kill that succeeded", PATIENCE, |executions| {
            let after = succeeded(executions, TICK).filter(|e| e.scheduled_at > killed);
            after.filter_map(|e| e.started_at).min()
        })
        .await;
    measured.fires_resumed = Some(resumed.saturating_since(killed));
    cluster.wait_ticks(ticks, 3).await;
    cluster.finish(&mut measured).await;
    measured
}

/// `kill -9` of a worker (not the leader) mid-way through a `slow` execution: the leader
/// abandons it once its heartbeat is older than `abandon_after` on the store's clock, and a
/// retry with a greater token runs on another node and succeeds; the audit is clean.
pub async fn killed_worker_execution_is_abandoned_and_retried(setup: &NodeSetup) -> Measured {
    let mut cluster = Cluster::new(setup).await;
    let mut measured = Measured::default();
    // The leader runs ticks only, so that the slow job runs on the other two.
    cluster.start(&["a"], &[TICK]).await;
    cluster.node("a").expect("LEADING", PATIENCE).await;
    cluster.start(&["b", "c"], &[TICK, SLOW]).await;
    let first = cluster
        .wait_record("a running slow execution", PATIENCE + node::SLOW_EVERY, |executions| {
            running_slow(executions, 1)
        })
        .await;
    let (worker, run) = (node_of(&first), run_of(&first));
    cluster.node(&worker).expect_this_run("WROTE", &run, Some("begin"), PATIENCE).await;
    cluster.kill9(&worker).await;
    let killed = cluster.now().await;
    let (abandoned, retry) = cluster
        .wait_record("the abandonment and a running retry", PATIENCE, |executions| {
            let abandoned = attempt_of(executions, &first, 1)
                .filter(|e| e.status == ExecutionStatus::Abandoned)?;
            let retry = attempt_of(executions, &first, 2).filter(|e| e.started_at.is_some())?;
            Some((abandoned.clone(), retry.clone()))
        })
        .await;
    let finished = abandoned.finished_at.expect("an abandoned execution has finished");
    measured.abandoned = Some(finished.saturating_since(killed));
    measured.retried = retry.started_at.map(|at| at.saturating_since(killed));
    assert!(retry.token > abandoned.token, "{abandoned:?} then {retry:?}");
    assert_ne!(node_of(&retry), worker, "the retry ran on the killed node: {retry:?}");
    assert_eq!(retry.trigger, Trigger::Retry);
    let within = PATIENCE + node::SLOW_RUN;
    cluster.node(&node_of(&retry)).expect_this_run("RAN", &run_of(&retry), None, within).await;
    cluster
        .wait_record("the retry's success", PATIENCE, |executions| {
            attempt_of(executions, &first, 2)
                .filter(|e| e.status == ExecutionStatus::Succeeded)
                .map(|_| ())
        })
        .await;
    let ticks = succeeded(&cluster.executions().await, TICK).count();
    cluster.wait_ticks(ticks, 2).await;
    cluster.finish(&mut measured).await;
    measured
}

/// `SIGSTOP` of the scheduler leader past its TTL, mid-way through a `slow` execution and
/// inside a `tick` handler: another node takes over (an expired takeover, after the paused
/// lease expired on the store's clock) and abandons both executions (store time); the slow one
/// is retried with a greater token, the tick (one attempt allowed) is not. After `SIGCONT`
/// the resumed node does not lead under its old term, the late writes of both abandoned
/// attempts are rejected by the fence (newer tokens wrote), no attempt it started before the
/// pause writes again, and the audit is clean.
pub async fn paused_leader_is_replaced_and_its_late_write_fenced(setup: &NodeSetup) -> Measured {
    let mut cluster = Cluster::new(setup).await;
    let mut measured = Measured::default();
    // Alone, the leader runs the first slow fire itself.
    cluster.start(&["a"], &[TICK, SLOW]).await;
    let (leading, _) = cluster.node("a").expect("LEADING", PATIENCE).await;
    let first = cluster.node("a").expect_run("STARTED", SLOW, PATIENCE + node::SLOW_EVERY).await;
    cluster.node("a").expect_this_run("WROTE", &first, Some("begin"), PATIENCE).await;
    // a stops in its next tick handler, before that handler's write.
    let stopping = cluster.node("a").pause_on("STOP-IN-TICK", PATIENCE).await;
    let tick = Run::of(&stopping).expect("a stops in a tick handler");
    let (paused, paused_on_leases) = (cluster.now().await, cluster.lease_now().await);
    let frozen = cluster.leader_lease().await.expect("a's lease");
    cluster.start(&["b", "c"], &[TICK, SLOW]).await;
    let lease = cluster.wait_leader(leading.token().expect("a token"), PATIENCE).await;
    assert!(lease.acquired_at >= frozen.expires_at, "taken over before a's lease expired");
    cluster.assert_expired_takeover(&lease).await;
    measured.failover = Some(lease.acquired_at.saturating_since(paused_on_leases));
    let abandoned = |run: &Run| {
        let run = run.clone();
        move |e: &&Execution| {
            run_of_any(e) == Some(run.clone()) && e.status == ExecutionStatus::Abandoned
        }
    };
    let (gone, retry) = cluster
        .wait_record("a running retry of a's slow attempt", PATIENCE, |executions| {
            let gone = executions.iter().find(abandoned(&first))?;
            let retry = attempt_of(executions, gone, 2).filter(|e| e.started_at.is_some())?;
            Some((gone.clone(), retry.clone()))
        })
        .await;
    measured.abandoned = gone.finished_at.map(|at| at.saturating_since(paused));
    cluster
        .wait_record("the abandonment of a's tick", PATIENCE, |executions| {
            executions.iter().find(abandoned(&tick)).map(|_| ())
        })
        .await;
    measured.retried = retry.started_at.map(|at| at.saturating_since(paused));
    let retry_run = run_of(&retry);
    assert!(retry_run.token > first.token, "{first:?} then {retry_run:?}");
    let retried_on = node_of(&retry);
    cluster.node(&retried_on).expect_this_run("WROTE", &retry_run, Some("begin"), PATIENCE).await;
    // Every attempt a started before the pause holds a token no greater than its held tick's
    // or its slow attempt's (executions draw their tokens from the state store, which need not
    // be the lease store): once another node wrote each job's ledger under a greater token,
    // a's late writes must fail.
    let before_pause = tick.token.max(first.token);
    cluster
        .wait_record("a tick claimed after a's that succeeded", PATIENCE, |executions| {
            let newer = |e: &&Execution| e.token.map(token_u64) > Some(before_pause);
            succeeded(executions, TICK).find(newer).map(|_| ())
        })
        .await;
    let stale = |event: &node::Event| Run::of(event).is_some_and(|run| run.token <= before_pause);
    let term = token_of(&lease);
    cluster.node("a").drain();
    cluster.node("a").resume();
    let rejected = |run: &Run, step: &'static str| {
        let run = run.clone();
        move |e: &node::Event| {
            e.kind == "REJECTED" && node::step(e) == step && Run::of(e) == Some(run.clone())
        }
    };
    let (late_end, late_tick) = (rejected(&first, "end"), rejected(&tick, "once"));
    cluster.node("a").expect_all(&[&late_end, &late_tick], PATIENCE).await;
    let within = PATIENCE + node::SLOW_RUN;
    cluster.node(&retried_on).expect_this_run("RAN", &retry_run, None, within).await;
    let ticks = succeeded(&cluster.executions().await, TICK).count();
    cluster.wait_ticks(ticks, 3).await;
    let after_resume: Vec<node::Event> = {
        let history = cluster.node("a").history();
        let resumed = history.iter().position(|e| e.kind == "RESUMED").expect("a resumed");
        history[resumed..].to_vec()
    };
    for event in &after_resume {
        // a may lead again later, in a term of its own.
        let old_term = event.kind == "LEADING" && event.token() <= Some(term);
        assert!(!old_term, "a led under an old term after resuming: {after_resume:?}");
        assert!(event.kind != "WROTE" || !stale(event), "a stale write was accepted: {event:?}");
    }
    cluster.finish(&mut measured).await;
    assert!(measured.ledger.rejected >= 2, "{measured:?}");
    measured
}

/// F8, a rolling restart as a deployment does it: each node in turn, the first leader first,
/// is shut down gracefully and a new one started in its place. A leader that leaves releases
/// its lease, so every leader change in the window is a handover whose gap (from the release to
/// the next grant, on the lease store's clock) is well below the TTL, never an expired
/// takeover; fires go on, and the audit of the whole window is clean.
pub async fn rolling_restart_hands_over_and_keeps_every_fire(setup: &NodeSetup) -> Measured {
    let mut cluster = Cluster::new(setup).await;
    let mut measured = Measured::default();
    cluster.start_led_by_a().await;
    let mut ticks = cluster.wait_ticks(0, 2).await;
    let (_, first_term) = cluster.leader().await;
    for (leaving, joining) in [("a", "a2"), ("b", "b2"), ("c", "c2")] {
        cluster.quit(leaving).await;
        cluster.start(&[joining], &[TICK, SLOW]).await;
        ticks = cluster.wait_ticks(ticks, 2).await;
    }
    let changes = cluster.leader_changes_after(first_term).await;
    assert!(!changes.is_empty(), "the leadership never changed hands");
    for change in &changes {
        assert_eq!(change.reason, ChangeReason::Handover, "{changes:#?}");
        let gap = change.failover().expect("a handover follows a term");
        assert!(gap < setup.ttl, "a handover took {gap:?}: {change:?}");
        measured.failover = measured.failover.max(Some(gap));
    }
    cluster.finish(&mut measured).await;
    measured
}

/// A running attempt `attempt` of a `slow` fire.
fn running_slow(executions: &[Execution], attempt: u32) -> Option<Execution> {
    executions
        .iter()
        .find(|e| {
            e.job.as_str() == SLOW && e.attempt == attempt && e.status == ExecutionStatus::Running
        })
        .cloned()
}

/// The attempt `attempt` of the fire of `of`.
fn attempt_of<'a>(
    executions: &'a [Execution],
    of: &Execution,
    attempt: u32,
) -> Option<&'a Execution> {
    executions
        .iter()
        .find(|e| e.job == of.job && e.scheduled_at == of.scheduled_at && e.attempt == attempt)
}

/// The claimed execution as a node reports it.
fn run_of(execution: &Execution) -> Run {
    run_of_any(execution).expect("a claimed execution has a token")
}

/// The node that claimed the execution.
fn node_of(execution: &Execution) -> String {
    execution.node.as_ref().expect("a claimed execution has a node").as_str().to_string()
}
