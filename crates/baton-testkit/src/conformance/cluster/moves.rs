//! Cases on rebalancing: the leader moves pending partitions between active nodes, each under
//! a new token, never a started one and never one to two nodes; every move, failovers
//! included, is recorded with its batch.

use std::collections::BTreeSet;

use baton_core::cluster::{
    BatchCreateParams, MoveReason, Node, NodeLeaveParams, Partition, PartitionCompleteParams,
    PartitionMove, PartitionMoveParams, PartitionMovesParams, PartitionReassignParams,
    PartitionState, Strategy,
};
use baton_core::{ClusterStore, ErrorKind};

use super::ClusterHarness;
use super::support::*;

fn move_params(batch: i64, from: &Node, to: &Node, count: u32, keep: u32) -> PartitionMoveParams {
    PartitionMoveParams {
        batch,
        from: from.id.clone(),
        to: to.id.clone(),
        count,
        keep,
        reason: MoveReason::Join,
    }
}

/// Every move of a batch, page by page.
async fn moves_of(store: &dyn ClusterStore, batch: i64) -> Vec<PartitionMove> {
    let mut all = Vec::new();
    let mut params = PartitionMovesParams { limit: 2, ..PartitionMovesParams::new(batch) };
    loop {
        let page = store.partition_moves(params.clone()).await.expect("partition_moves");
        assert!(page.items.len() <= 2, "a page holds at most its limit");
        all.extend(page.items);
        match page.next {
            Some(next) => params.after = Some(next),
            None => return all,
        }
    }
}

/// A move takes the source's pending partitions with the greatest ids, leaves it `keep`,
/// assigns each to the target under a new, greater token, and is recorded; the source can no
/// longer claim them and the target claims them under greater tokens still. The batch keeps
/// its strategy and stealing flag.
pub async fn moves_take_the_last_pending_partitions_under_new_tokens(h: &dyn ClusterHarness) {
    let store = h.store().await;
    let busy = register(&*store, "busy").await;
    let partitions = assigned_to(specs(6), &[&busy]);
    let params = BatchCreateParams {
        name: unique_batch_name("scale-up"),
        strategy: Strategy::ScaleUp,
        stealing: true,
        partitions,
    };
    let batch = store.batch_create(params).await.expect("create the batch");
    assert_eq!((batch.strategy, batch.stealing), (Strategy::ScaleUp, true));
    let read = store.batch_get(batch.id).await.expect("batch_get").expect("the batch");
    assert_eq!((read.strategy, read.stealing), (Strategy::ScaleUp, true));
    let started = claim(&*store, &busy, 1).await.remove(0);
    let joined = register(&*store, "joined").await;

    let moved = store.partition_move(move_params(batch.id, &busy, &joined, 10, 2)).await;
    let moved = moved.expect("partition_move");
    let keys: Vec<&str> = moved.iter().map(|p| p.key.as_str()).collect();
    assert_eq!(keys, ["p3", "p4", "p5"], "the greatest ids, leaving two pending");
    let mut last = token(&started).max(joined.token);
    for partition in &moved {
        assert_eq!(partition.state, PartitionState::Pending);
        assert_eq!(partition.node.as_ref(), Some(&joined.id));
        assert!(token(partition) > last, "each move issues a greater token");
        last = token(partition);
    }

    let kept: Vec<String> =
        claim(&*store, &busy, 10).await.iter().map(|p| p.key.to_string()).collect();
    assert_eq!(kept, ["p1", "p2"], "the source claims only what it kept");
    let taken = claim(&*store, &joined, 10).await;
    assert_eq!(taken.iter().map(|p| p.id).collect::<Vec<_>>(), ids(&moved));
    assert!(taken.iter().all(|p| token(p) > last), "claims follow the moves' tokens");

    let recorded = moves_of(&*store, batch.id).await;
    let described: Vec<String> = recorded.iter().map(describe).collect();
    let expected: Vec<String> = moved
        .iter()
        .map(|p| {
            let token = token(p);
            format!("{} {} {}>{} join {token}", p.id, p.key, busy.id, joined.id)
        })
        .collect();
    assert_eq!(described, expected);
    assert!(recorded.windows(2).all(|w| w[0].id < w[1].id), "oldest first");
    assert!(recorded.iter().all(|m| m.batch == batch.id));
    let other = moves_of(&*store, batch.id + 1_000_000).await;
    assert_eq!(other, Vec::new(), "an unknown batch has no moves");
}

/// A move never takes a claimed partition, never moves to a node that is not active, moves
/// nothing in a finished batch, and applied twice (two leaders with one plan) moves no more;
/// bad parameters are refused and change nothing.
pub async fn moves_are_bounded_and_checked(h: &dyn ClusterHarness) {
    let store = h.store().await;
    let busy = register(&*store, "busy").await;
    let idle = register(&*store, "idle").await;
    let (batch, _) = create(&*store, Strategy::RoundRobin, assigned_to(specs(5), &[&busy])).await;
    let started = claim(&*store, &busy, 2).await;

    let once = store.partition_move(move_params(batch.id, &busy, &idle, 2, 1)).await;
    assert_eq!(once.expect("move").len(), 2);
    let twice = store.partition_move(move_params(batch.id, &busy, &idle, 2, 1)).await;
    assert_eq!(twice.expect("move again"), Vec::new(), "the same plan again moves nothing");
    let all = store.partition_move(move_params(batch.id, &busy, &idle, 10, 0)).await;
    assert_eq!(ids(&all.expect("move the rest")).len(), 1, "only the pending one is left");
    for partition in &started {
        let now = super::support::partition(&*store, batch.id, partition.id).await;
        assert_eq!((now.state, now.node.as_ref()), (PartitionState::Claimed, Some(&busy.id)));
    }

    let gone = register(&*store, "gone").await;
    let leave = NodeLeaveParams { node: gone.id.clone(), token: gone.token };
    store.node_leave(leave).await.expect("leave");
    let to_gone = store.partition_move(move_params(batch.id, &idle, &gone, 10, 0)).await;
    assert_eq!(to_gone.expect("move to a node that left"), Vec::new());
    let unknown = Node { id: unique_node("unknown"), ..idle.clone() };
    let to_unknown = store.partition_move(move_params(batch.id, &idle, &unknown, 10, 0)).await;
    assert_eq!(to_unknown.expect("move to an unknown node"), Vec::new());
    let no_batch = store.partition_move(move_params(batch.id + 1_000_000, &idle, &busy, 1, 0));
    assert_eq!(no_batch.await.expect("move in an unknown batch"), Vec::new());

    for partition in claim(&*store, &idle, 10).await.iter().chain(&started) {
        let done =
            PartitionCompleteParams { id: partition.id, token: token(partition), result: None };
        store.partition_complete(done).await.expect("complete");
    }
    let finished = store.batch_finish(batch.id).await.expect("batch_finish");
    assert_eq!(finished.state, baton_core::cluster::BatchState::Succeeded);
    let (late, _) = create(&*store, Strategy::RoundRobin, assigned_to(specs(1), &[&busy])).await;
    let in_finished = store.partition_move(move_params(batch.id, &busy, &idle, 1, 0)).await;
    assert_eq!(in_finished.expect("move in a finished batch"), Vec::new());

    let before = moves_of(&*store, late.id).await;
    let bad = [
        PartitionMoveParams { count: 0, ..move_params(late.id, &busy, &idle, 1, 0) },
        PartitionMoveParams { count: 1001, ..move_params(late.id, &busy, &idle, 1, 0) },
        move_params(late.id, &busy, &busy, 1, 0),
        PartitionMoveParams {
            reason: MoveReason::Failover,
            ..move_params(late.id, &busy, &idle, 1, 0)
        },
    ];
    for params in bad {
        let what = format!("{params:?}");
        assert_kind(store.partition_move(params).await, ErrorKind::InvalidInput, &what);
    }
    assert_eq!(moves_of(&*store, late.id).await, before, "a refused move records nothing");
    let pending = super::support::partitions_of(&*store, late.id).await;
    assert_eq!(pending[0].node.as_ref(), Some(&busy.id), "a refused move moves nothing");
    for limit in [0, 1001] {
        let params = PartitionMovesParams { limit, ..PartitionMovesParams::new(late.id) };
        assert_kind(store.partition_moves(params).await, ErrorKind::InvalidInput, "limit");
    }
}

/// Two leaders applying different plans at once while the source claims: every partition
/// ends on exactly one node, and the moves and the claim take disjoint sets.
pub async fn racing_moves_and_claims_never_share_a_partition(h: &dyn ClusterHarness) {
    let store = h.store().await;
    let busy = register(&*store, "busy").await;
    let left = register(&*store, "left").await;
    let right = register(&*store, "right").await;
    let (batch, _) = create(&*store, Strategy::RoundRobin, assigned_to(specs(20), &[&busy])).await;
    let (to_left, to_right, claimed) = tokio::join!(
        store.partition_move(move_params(batch.id, &busy, &left, 10, 5)),
        store.partition_move(move_params(batch.id, &busy, &right, 10, 5)),
        store.partition_claim(claim_params(&busy, 5)),
    );
    let sets =
        [to_left.expect("move left"), to_right.expect("move right"), claimed.expect("claim")];
    let mut seen = BTreeSet::new();
    for set in &sets {
        for partition in set {
            assert!(seen.insert(partition.id), "partition {} taken twice", partition.id);
        }
    }
    assert!(sets[0].len() + sets[1].len() <= 15, "each move leaves the source five: {sets:?}");
    let owners = [&left.id, &right.id, &busy.id];
    for partition in super::support::partitions_of(&*store, batch.id).await {
        let holder = sets.iter().position(|set| set.iter().any(|p| p.id == partition.id));
        match holder {
            Some(i) => assert_eq!(partition.node.as_ref(), Some(owners[i])),
            None => assert_eq!(
                (partition.state, partition.node.as_ref()),
                (PartitionState::Pending, Some(&busy.id))
            ),
        }
    }
    assert_eq!(moves_of(&*store, batch.id).await.len(), sets[0].len() + sets[1].len());
}

/// Partitions requeued off a departed node are recorded as failover moves, from that node to
/// the live node they went to (to no node in a free-for-all batch), without a token: their
/// next claim issues one. A partition that failed with its node did not move.
pub async fn failovers_are_recorded_as_moves(h: &dyn ClusterHarness) {
    let store = h.store().await;
    let lost = register(&*store, "lost").await;
    let (batch, _) = create(&*store, Strategy::RoundRobin, assigned_to(specs(2), &[&lost])).await;
    let (free, _) = create(&*store, Strategy::FreeForAll, assigned_to(specs(1), &[])).await;
    claim(&*store, &lost, 10).await;
    let survivor = register(&*store, "survivor").await;
    lose(&*store, &lost, &survivor).await;
    let reassigned =
        store.partition_reassign(PartitionReassignParams::default()).await.expect("reassign");
    assert_eq!(reassigned.moved.len(), 3);

    let recorded = moves_of(&*store, batch.id).await;
    let described: Vec<String> = recorded.iter().map(describe).collect();
    let p0 = &reassigned.moved[0];
    let p1 = &reassigned.moved[1];
    assert_eq!(
        described,
        [
            format!("{} p0 {}>{} failover -", p0.id, lost.id, survivor.id),
            format!("{} p1 {}>{} failover -", p1.id, lost.id, survivor.id),
        ]
    );
    let free_moves = moves_of(&*store, free.id).await;
    assert_eq!(free_moves.len(), 1);
    assert_eq!((free_moves[0].from.as_str(), free_moves[0].to.as_ref()), (lost.id.as_str(), None));

    let leaving = register(&*store, "leaving").await;
    let (left_batch, _) =
        create(&*store, Strategy::LeastLoaded, assigned_to(specs(1), &[&leaving])).await;
    let leave = NodeLeaveParams { node: leaving.id.clone(), token: leaving.token };
    keep_alive(&*store, &survivor).await;
    store.node_leave(leave).await.expect("leave");
    let left_moves = moves_of(&*store, left_batch.id).await;
    assert_eq!(left_moves.len(), 1, "a leave records its handover: {left_moves:?}");
    assert_eq!(left_moves[0].reason, MoveReason::Failover);
    assert_eq!(left_moves[0].from, leaving.id);
    assert!(left_moves[0].at >= left_batch.created_at);
}

/// A move as "partition key from>to reason token", `any` for no node and `-` for no token.
fn describe(moved: &PartitionMove) -> String {
    let to = moved.to.as_ref().map_or("any", |node| node.as_str());
    let token = moved.token.map_or("-".to_owned(), |token| token.to_string());
    format!("{} {} {}>{to} {} {token}", moved.partition, moved.key, moved.from, moved.reason)
}

fn ids(partitions: &[Partition]) -> Vec<i64> {
    partitions.iter().map(|p| p.id).collect()
}
