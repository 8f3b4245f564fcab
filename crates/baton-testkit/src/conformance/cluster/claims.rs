//! Cases on claiming and writing partitions: exclusivity, scope, and compare-and-set
//! checkpoints, completion and failure (I7).

use std::collections::{BTreeSet, HashMap};

use baton_core::cluster::{
    NodeId, PartitionCompleteParams, PartitionFailParams, PartitionState, Strategy,
};
use baton_core::{ErrorKind, FencingToken};

use super::ClusterHarness;
use super::support::*;

/// Eight nodes, each on its own handle, claim 200 free-for-all partitions at once: each
/// partition is claimed exactly once, under a token of its own, and each node's tokens grow
/// claim by claim.
pub async fn racing_claimers_claim_each_partition_once(h: &dyn ClusterHarness) {
    let store = h.store().await;
    let (batch, _) = create(&*store, Strategy::FreeForAll, assigned_to(specs(200), &[])).await;
    let mut tasks = Vec::new();
    for n in 0..8 {
        let store = h.store().await;
        let node = register(&*store, &format!("claimer{n}")).await;
        tasks.push(tokio::spawn(async move {
            let mut claims = Vec::new();
            loop {
                let claimed = claim(&*store, &node, 7).await;
                if claimed.is_empty() {
                    return (node.id, claims);
                }
                claims.push(claimed);
            }
        }));
    }
    let mut owners: HashMap<i64, (NodeId, FencingToken)> = HashMap::new();
    let mut tokens = BTreeSet::new();
    for task in tasks {
        let (node, claims) = task.await.expect("claimer task");
        for pair in claims.windows(2) {
            let before = pair[0].iter().map(token).max();
            let after = pair[1].iter().map(token).min();
            assert!(before < after, "{node}: tokens must grow claim by claim");
        }
        for partition in claims.iter().flatten() {
            let previous = owners.insert(partition.id, (node.clone(), token(partition)));
            assert!(previous.is_none(), "partition {} claimed twice", partition.id);
            assert!(tokens.insert(token(partition)), "token {} issued twice", token(partition));
        }
    }
    let stored = partitions_of(&*store, batch.id).await;
    assert_eq!((owners.len(), stored.len()), (200, 200), "every partition claimed");
    for partition in stored {
        let (node, token) = &owners[&partition.id];
        assert_eq!(partition.state, PartitionState::Claimed);
        assert_eq!((partition.node.as_ref(), partition.token), (Some(node), Some(*token)));
        assert_eq!(partition.attempts, 1);
    }
}

/// A claim takes pending partitions assigned to the claimer or to no one, of the jobs it
/// names, by id and up to its limit; never another node's.
pub async fn claims_take_partitions_assigned_to_the_node_or_to_no_one(h: &dyn ClusterHarness) {
    let store = h.store().await;
    let (a, b) = (register(&*store, "a").await, register(&*store, "b").await);
    let (assigned, _) =
        create(&*store, Strategy::RoundRobin, assigned_to(specs(3), &[&a, &b])).await;
    let (free, _) = create(&*store, Strategy::FreeForAll, assigned_to(specs(2), &[])).await;

    let mut params = claim_params(&a, 10);
    params.jobs = vec![assigned.name.clone()];
    let claimed = store.partition_claim(params).await.expect("claim");
    let got: Vec<(i64, &str)> = claimed.iter().map(|p| (p.batch, p.key.as_str())).collect();
    assert_eq!(got, [(assigned.id, "p0"), (assigned.id, "p2")], "its own, of the job it names");

    let first = claim(&*store, &b, 1).await;
    let got: Vec<(i64, &str)> = first.iter().map(|p| (p.batch, p.key.as_str())).collect();
    assert_eq!(got, [(assigned.id, "p1")], "the lowest id first");
    let rest = claim(&*store, &b, 10).await;
    let got: Vec<(i64, &str)> = rest.iter().map(|p| (p.batch, p.key.as_str())).collect();
    assert_eq!(got, [(free.id, "p0"), (free.id, "p1")], "unassigned partitions go to any node");
    assert_eq!(claim(&*store, &a, 10).await, Vec::new(), "nothing is left");
    assert!(token(&first[0]) > token(&claimed[1]), "later claims get greater tokens");
}

/// A checkpoint replaces the previous one whole, only under the claim's current token, and
/// reads back byte for byte.
pub async fn checkpoint_is_compare_and_set_on_the_token(h: &dyn ClusterHarness) {
    let store = h.store().await;
    let node = register(&*store, "checkpoint").await;
    let (batch, _) = create(&*store, Strategy::RoundRobin, assigned_to(specs(2), &[&node])).await;
    let claimed = claim(&*store, &node, 2).await;
    let (mine, other) = (&claimed[0], &claimed[1]);

    let mut foreign = checkpoint_params(mine, "{}", 1);
    foreign.token = token(other);
    let refused = store.partition_checkpoint(foreign).await;
    assert_kind(refused, ErrorKind::LeaseLost, "a checkpoint under another claim's token");
    assert_eq!(
        partition(&*store, batch.id, mine.id).await,
        *mine,
        "a refused checkpoint changes nothing"
    );

    let first = r#"{ "offset": 100, "carry": "ünïcode ✓" }"#;
    let saved =
        store.partition_checkpoint(checkpoint_params(mine, first, 100)).await.expect("checkpoint");
    assert_eq!((saved.checkpoint.clone(), saved.progress), (Some(json(first)), 100));
    assert_eq!((saved.state, saved.token), (PartitionState::Claimed, mine.token));
    assert_eq!(partition(&*store, batch.id, mine.id).await, saved);
    let second = r#"{"offset":200}"#;
    store.partition_checkpoint(checkpoint_params(mine, second, 200)).await.expect("checkpoint");
    let read = partition(&*store, batch.id, mine.id).await;
    assert_eq!((read.checkpoint, read.progress), (Some(json(second)), 200), "replaced whole");

    let done = PartitionCompleteParams { id: mine.id, token: token(mine), result: None };
    store.partition_complete(done).await.expect("complete");
    let late = store.partition_checkpoint(checkpoint_params(mine, "{}", 300)).await;
    assert_kind(late, ErrorKind::LeaseLost, "a checkpoint of a completed partition");
}

/// A node checkpoints over and over while it registers again: every checkpoint before the
/// new incarnation is accepted, every one after is refused, and the partition keeps exactly
/// the last one accepted.
pub async fn a_checkpoint_racing_a_new_incarnation_is_kept_whole_or_refused(
    h: &dyn ClusterHarness,
) {
    let store = h.store().await;
    let node = register(&*store, "racing").await;
    let (batch, _) = create(&*store, Strategy::RoundRobin, assigned_to(specs(1), &[&node])).await;
    let claimed = claim(&*store, &node, 1).await.remove(0);
    let padding = "x".repeat(4096);
    let text = move |i: u32| format!(r#"{{"i":{i},"pad":"{padding}"}}"#);
    let (accepted_tx, mut accepted_rx) = tokio::sync::watch::channel(0u32);

    let writer = {
        let (store, claimed, text) = (h.store().await, claimed.clone(), text.clone());
        tokio::spawn(async move {
            let (mut last_accepted, mut refused, mut i) = (None, 0, 0);
            let deadline = tokio::time::Instant::now() + PATIENCE;
            while refused < 3 {
                assert!(tokio::time::Instant::now() < deadline, "the old claim is never refused");
                i += 1;
                let params = checkpoint_params(&claimed, &text(i), u64::from(i));
                match store.partition_checkpoint(params).await {
                    Ok(_) => {
                        assert_eq!(refused, 0, "checkpoint {i} accepted after one was refused");
                        last_accepted = Some(i);
                        accepted_tx.send_replace(i);
                    }
                    Err(err) => {
                        assert_eq!(err.kind(), ErrorKind::LeaseLost, "{err}");
                        refused += 1;
                    }
                }
            }
            last_accepted
        })
    };
    accepted_rx.wait_for(|accepted| *accepted >= 10).await.expect("the writer checkpoints");
    register_as(&*store, &node.id, 0).await;
    let last = writer.await.expect("writer task").expect("some checkpoints were accepted");
    let stored = partition(&*store, batch.id, claimed.id).await;
    assert_eq!(stored.state, PartitionState::Pending, "back to pending for the new incarnation");
    assert_eq!(stored.checkpoint, Some(json(&text(last))), "the last accepted checkpoint, whole");
    assert_eq!(stored.progress, u64::from(last));
}

/// Completion and failure are final and only under the claim's current token; the result and
/// error are stored, and the partitions are lost to their node's heartbeat.
pub async fn complete_and_fail_are_compare_and_set_on_the_token(h: &dyn ClusterHarness) {
    let store = h.store().await;
    let node = register(&*store, "finish").await;
    let (batch, _) = create(&*store, Strategy::LeastLoaded, assigned_to(specs(2), &[&node])).await;
    let claimed = claim(&*store, &node, 2).await;
    let (done, broken) = (&claimed[0], &claimed[1]);

    let foreign = PartitionCompleteParams { id: done.id, token: token(broken), result: None };
    assert_kind(store.partition_complete(foreign).await, ErrorKind::LeaseLost, "a foreign token");
    assert_eq!(
        partition(&*store, batch.id, done.id).await,
        *done,
        "a refused completion changes nothing"
    );

    let result = json(r#"{"rows":100}"#);
    let params =
        PartitionCompleteParams { id: done.id, token: token(done), result: Some(result.clone()) };
    let completed = store.partition_complete(params.clone()).await.expect("complete");
    assert_eq!(
        (completed.state, completed.result.clone()),
        (PartitionState::Completed, Some(result))
    );
    assert!(completed.finished_at.is_some());
    assert_eq!(partition(&*store, batch.id, done.id).await, completed);

    let fail = PartitionFailParams {
        id: broken.id,
        token: token(broken),
        error: "parse error at line 7".into(),
    };
    let failed = store.partition_fail(fail.clone()).await.expect("fail");
    assert_eq!(
        (failed.state, failed.error.as_deref()),
        (PartitionState::Failed, Some("parse error at line 7"))
    );
    assert!(failed.finished_at.is_some());

    assert_kind(store.partition_complete(params).await, ErrorKind::LeaseLost, "completing twice");
    let fail_done = PartitionFailParams { id: done.id, token: token(done), error: "late".into() };
    assert_kind(
        store.partition_fail(fail_done).await,
        ErrorKind::LeaseLost,
        "failing a completed one",
    );
    let complete_failed =
        PartitionCompleteParams { id: broken.id, token: token(broken), result: None };
    assert_kind(
        store.partition_complete(complete_failed).await,
        ErrorKind::LeaseLost,
        "completing a failed one",
    );
    assert_kind(store.partition_fail(fail).await, ErrorKind::LeaseLost, "failing twice");
    assert_eq!(
        partition(&*store, batch.id, done.id).await,
        completed,
        "a final partition never changes"
    );
    assert_eq!(partition(&*store, batch.id, broken.id).await, failed);

    let beat = store.node_heartbeat(heartbeat_params(&node, 0, &[(done, 1), (broken, 1)])).await;
    assert_eq!(beat.expect("heartbeat").lost, [done.id, broken.id]);
}
