//! Overlap `forbid` across the death of the scheduler leader, with three nodes as separate
//! processes (`baton-test-node`), shared by every backend's scheduler fault tests.
//!
//! A `tick` execution (overlap `forbid`) is held running when the leader is killed; the other
//! nodes then stay paused long enough for several fires to be owed when one of them takes
//! over. The fires the new leader records for the time no leader ran must all run, one after
//! another: none came due while an execution that still runs when it is claimed was running.

use std::time::Duration;

use baton::StoreTime;
use baton::core::{Execution, ExecutionStatus, Trigger};

use crate::faults::PATIENCE;
use crate::node::{self, Run, TICK};
use crate::node_args::NodeSetup;
use crate::scheduler_faults::{Cluster, Measured};

/// The nodes of the scenario; the first leads.
const NODES: [&str; 3] = ["a", "b", "c"];
/// How long after the leader's death the other nodes resume: past the lease's expiry, and
/// two more `tick` intervals, so that at least two fires are owed when one of them takes over.
const OWED_FOR: Duration =
    Duration::from_secs(node::TTL.as_secs() + 2 * node::TICK_EVERY.as_secs());
/// How often the scenario reads the store's clock while it waits for it to pass an instant.
const POLL: Duration = Duration::from_millis(50);

/// Where the held `tick` execution runs when the leader dies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Held {
    /// On another node: it is released and completes while no leader runs.
    Elsewhere,
    /// On the leader: it dies with it, and is abandoned once its heartbeat is stale.
    OnTheLeader,
}

/// `kill -9` of the scheduler leader while a `tick` execution runs (held before its write),
/// on another node, where it then completes, or on the leader itself. The fires owed while no
/// leader ran are recorded by the new leader at once and all succeed; none is skipped against
/// the held execution or against another owed fire; the audit is clean.
pub async fn owed_fires_of_a_forbid_job_run_after_the_leader_dies(
    setup: &NodeSetup,
    held: Held,
) -> Measured {
    let mut cluster = Cluster::new(setup).await;
    let mut measured = Measured::default();
    cluster.start(&NODES[..1], &[TICK]).await;
    cluster.node(NODES[0]).expect("LEADING", PATIENCE).await;
    cluster.start(&NODES[1..], &[TICK]).await;
    let (leader, token) = cluster.leader().await;
    let survivors: Vec<&str> = NODES.into_iter().filter(|name| *name != leader).collect();
    let holder = match held {
        Held::OnTheLeader => leader.as_str(),
        Held::Elsewhere => survivors[0],
    };
    cluster.node(holder).send_line("HOLD-TICK").await;
    let run = cluster.node(holder).expect_run("HELD", TICK, PATIENCE).await;
    cluster.kill9(&leader).await;
    let killed = cluster.now().await;
    if held == Held::Elsewhere {
        cluster.node(holder).send_line("RELEASE").await;
        cluster
            .wait_record("the held execution's success", PATIENCE, |executions| {
                record_of(executions, &run).filter(|e| e.status == ExecutionStatus::Succeeded)
            })
            .await;
    }
    for name in &survivors {
        cluster.node(name).pause(PATIENCE).await;
    }
    wait_store_time(&cluster, killed.saturating_add(OWED_FOR)).await;
    for name in &survivors {
        cluster.node(name).resume();
    }
    let lease = cluster.wait_leader(token, PATIENCE).await;
    let took_over = lease.acquired_at;
    measured.failover = Some(took_over.saturating_since(killed));
    let owed = cluster
        .wait_record("the owed fires finished, and a later one succeeded", PATIENCE, |records| {
            let owed = owed(records, took_over);
            let resumed = records.iter().any(|e| {
                e.job.as_str() == TICK
                    && e.scheduled_at > took_over
                    && e.status == ExecutionStatus::Succeeded
            });
            (resumed && owed.iter().all(|e| e.status.is_final())).then_some(owed)
        })
        .await;
    measured.fires_resumed =
        owed.iter().filter_map(|e| e.started_at).min().map(|at| at.saturating_since(killed));
    assert!(owed.len() >= 2, "fewer than two fires owed at the takeover: {owed:#?}");
    for fire in &owed {
        assert_eq!(
            fire.status,
            ExecutionStatus::Succeeded,
            "a fire owed at the takeover: {fire:#?}"
        );
    }
    let executions = cluster.executions().await;
    let held_record = record_of(&executions, &run).expect("the held execution is on record");
    let finished = held_record.finished_at.expect("the held execution has finished");
    match held {
        Held::Elsewhere => {
            assert_eq!(held_record.status, ExecutionStatus::Succeeded, "{held_record:?}");
            assert!(finished < took_over, "completed after the takeover: {held_record:?}");
        }
        Held::OnTheLeader => {
            assert_eq!(held_record.status, ExecutionStatus::Abandoned, "{held_record:?}");
            let recorded = owed.iter().map(|e| e.created_at).min().expect("owed fires");
            assert!(finished <= recorded, "abandoned after the owed fires were recorded");
            measured.abandoned = Some(finished.saturating_since(killed));
        }
    }
    cluster.finish(&mut measured).await;
    measured
}

/// The `tick` fires the leader that took over at `took_over` recorded for instants up to then.
fn owed(executions: &[Execution], took_over: StoreTime) -> Vec<Execution> {
    let owed = executions.iter().filter(|e| {
        e.job.as_str() == TICK
            && e.trigger == Trigger::Schedule
            && e.created_at >= took_over
            && e.scheduled_at <= took_over
    });
    owed.cloned().collect()
}

/// The record of the execution a node reported as `run`.
fn record_of(executions: &[Execution], run: &Run) -> Option<Execution> {
    executions
        .iter()
        .find(|e| {
            e.job.as_str() == run.job && e.scheduled_at == run.fire && e.attempt == run.attempt
        })
        .cloned()
}

/// Waits until the store's clock is past `at`, reading it every [`POLL`].
async fn wait_store_time(cluster: &Cluster, at: StoreTime) {
    let deadline = tokio::time::Instant::now() + PATIENCE;
    while cluster.now().await <= at {
        assert!(tokio::time::Instant::now() < deadline, "store time never passed {at}");
        tokio::time::sleep(POLL).await;
    }
}
