//! Cases on reading the record with keyset pages, and on bad input (I8).

use baton_core::ErrorKind;
use baton_core::cluster::{
    AssignedPartition, BatchCreateParams, BatchListParams, MAX_PARAMS_BYTES, MAX_PARTITIONS,
    NodeChangeReason, NodeChangesParams, NodeId, NodeLeaveParams, NodeListParams, NodeState,
    PartitionListParams, PartitionReassignParams, PartitionSpec, PartitionState, Strategy,
};
use baton_core::page::{Cursor, Page};

use super::ClusterHarness;
use super::support::*;

/// Every page of a listing, following its cursor; checks that no page is longer than `limit`.
async fn pages<T>(
    limit: usize,
    mut fetch: impl AsyncFnMut(Option<Cursor>) -> Page<T>,
) -> Vec<Vec<T>> {
    let mut pages = Vec::new();
    let mut after = None;
    loop {
        let page = fetch(after).await;
        assert!(page.items.len() <= limit, "a page holds at most its limit");
        assert!(pages.len() < 1000, "the cursor must move on");
        pages.push(page.items);
        match page.next {
            Some(next) => after = Some(next),
            None => return pages,
        }
    }
}

fn lengths<T>(pages: &[Vec<T>]) -> Vec<usize> {
    pages.iter().map(Vec::len).collect()
}

/// Nodes page by registration order and filter by state; node changes page oldest first and
/// filter by node.
pub async fn nodes_and_changes_page_with_a_keyset_cursor(h: &dyn ClusterHarness) {
    let store = h.store().await;
    let mut nodes = Vec::new();
    for i in 0..5 {
        nodes.push(register(&*store, &format!("page{i}")).await);
    }
    let again = register_as(&*store, &nodes[0].id, 0).await;
    register_as(&*store, &nodes[0].id, 0).await;
    let leave = NodeLeaveParams { node: nodes[4].id.clone(), token: nodes[4].token };
    store.node_leave(leave).await.expect("leave");
    let ours = |id: &NodeId| nodes.iter().any(|n| &n.id == id);

    let listed = pages(2, async |after| {
        let params = NodeListParams { after, limit: 2, ..Default::default() };
        store.node_list(params).await.expect("node_list")
    })
    .await;
    let seqs: Vec<i64> = listed.iter().flatten().map(|n| n.seq).collect();
    assert!(seqs.windows(2).all(|w| w[0] < w[1]), "ordered by seq: {seqs:?}");
    let ids: Vec<&NodeId> = listed.iter().flatten().map(|n| &n.id).filter(|id| ours(id)).collect();
    assert_eq!(ids, nodes.iter().map(|n| &n.id).collect::<Vec<_>>(), "in registration order");
    let first = listed.iter().flatten().find(|n| n.id == nodes[0].id).expect("listed");
    assert_eq!((first.seq, first.token > again.token), (nodes[0].seq, true));

    let active = pages(2, async |after| {
        let params = NodeListParams { state: Some(NodeState::Active), after, limit: 2 };
        store.node_list(params).await.expect("node_list")
    })
    .await;
    let active: Vec<&NodeId> =
        active.iter().flatten().map(|n| &n.id).filter(|id| ours(id)).collect();
    assert_eq!(
        active,
        nodes[..4].iter().map(|n| &n.id).collect::<Vec<_>>(),
        "the left node is not active"
    );

    let changes = pages(3, async |after| {
        let params = NodeChangesParams { node: None, after, limit: 3 };
        store.node_changes(params).await.expect("node_changes")
    })
    .await;
    let change_ids: Vec<i64> = changes.iter().flatten().map(|c| c.id).collect();
    assert!(change_ids.windows(2).all(|w| w[0] < w[1]), "oldest first: {change_ids:?}");
    let ours_changed = changes.iter().flatten().filter(|c| ours(&c.node)).count();
    assert_eq!(ours_changed, 8, "five registrations, two re-registrations and one leave");

    let first_node = Some(nodes[0].id.clone());
    let one = pages(2, async |after| {
        let params = NodeChangesParams { node: first_node.clone(), after, limit: 2 };
        store.node_changes(params).await.expect("node_changes")
    })
    .await;
    assert_eq!(lengths(&one), [2, 1]);
    let reasons: Vec<NodeChangeReason> = one.iter().flatten().map(|c| c.reason).collect();
    use NodeChangeReason::{Registered, Reregistered};
    assert_eq!(reasons, [Registered, Reregistered, Reregistered]);
}

/// Batches page by id and filter by job and state; a batch's partitions page by id and filter
/// by state, and never include another batch's.
pub async fn batches_and_partitions_page_with_a_keyset_cursor(h: &dyn ClusterHarness) {
    let store = h.store().await;
    let node = register(&*store, "node").await;
    let name = unique_batch_name("paged");
    let mut created = Vec::new();
    for _ in 0..3 {
        let partitions = assigned_to(specs(1), &[&node]);
        let params = BatchCreateParams {
            name: name.clone(),
            strategy: Strategy::RoundRobin,
            stealing: false,
            partitions,
        };
        created.push(store.batch_create(params).await.expect("batch_create"));
    }
    let (big, _) = create(&*store, Strategy::RoundRobin, assigned_to(specs(7), &[&node])).await;

    let listed = pages(2, async |after| {
        let params =
            BatchListParams { name: Some(name.clone()), after, limit: 2, ..Default::default() };
        store.batch_list(params).await.expect("batch_list")
    })
    .await;
    assert_eq!(lengths(&listed), [2, 1]);
    assert_eq!(listed.concat(), created, "by id, only the job's batches");
    let running = BatchListParams {
        name: Some(big.name.clone()),
        state: Some(baton_core::cluster::BatchState::Running),
        ..Default::default()
    };
    assert_eq!(
        store.batch_list(running).await.expect("batch_list").items,
        std::slice::from_ref(&big)
    );

    let all = pages(3, async |after| {
        let params = PartitionListParams { after, limit: 3, ..PartitionListParams::new(big.id) };
        store.partition_list(params).await.expect("partition_list")
    })
    .await;
    assert_eq!(lengths(&all), [3, 3, 1]);
    let keys: Vec<String> = all.iter().flatten().map(|p| p.key.to_string()).collect();
    assert_eq!(keys, (0..7).map(|i| format!("p{i}")).collect::<Vec<_>>());
    assert!(all.iter().flatten().all(|p| p.batch == big.id), "only the batch's partitions");

    let first_batch = claim(&*store, &node, 3).await;
    assert!(
        first_batch.iter().all(|p| p.batch != big.id),
        "the older batches' partitions come first"
    );
    claim(&*store, &node, 2).await;
    for (state, count) in [(PartitionState::Pending, 5), (PartitionState::Claimed, 2)] {
        let listed = pages(2, async |after| {
            let params = PartitionListParams { state: Some(state), after, limit: 2, batch: big.id };
            store.partition_list(params).await.expect("partition_list")
        })
        .await;
        let found: Vec<PartitionState> = listed.iter().flatten().map(|p| p.state).collect();
        assert_eq!(found, vec![state; count]);
    }
}

/// Bad input fails with `InvalidInput` naming the value and stores nothing: names, page sizes,
/// limits, and every way a partitioner's output can be wrong; unknown ids answer `NotFound`,
/// nothing, or `LeaseLost` for writes.
pub async fn bad_input_changes_nothing(h: &dyn ClusterHarness) {
    let store = h.store().await;
    let node = register(&*store, "bad").await;
    let id = unique_node("bad-host");
    for (host, version) in [("two words", "1.0"), ("host", ""), ("", "1.0")] {
        let params = baton_core::cluster::NodeRegisterParams {
            host: host.into(),
            version: version.into(),
            ..register_params(&id, 0)
        };
        assert_kind(
            store.node_register(params).await,
            ErrorKind::InvalidInput,
            "a bad host or version",
        );
    }
    let listed = store
        .node_list(NodeListParams { limit: 1000, ..Default::default() })
        .await
        .expect("node_list");
    assert!(listed.items.iter().all(|n| n.id != id), "a refused registration stores nothing");
    let changes = NodeChangesParams { node: Some(id.clone()), ..Default::default() };
    assert_eq!(store.node_changes(changes).await.expect("node_changes").items, Vec::new());

    for limit in [0, 1001] {
        let what = format!("limit {limit}");
        assert_kind(
            store.node_list(NodeListParams { limit, ..Default::default() }).await,
            ErrorKind::InvalidInput,
            &what,
        );
        assert_kind(
            store.node_changes(NodeChangesParams { limit, ..Default::default() }).await,
            ErrorKind::InvalidInput,
            &what,
        );
        assert_kind(
            store.batch_list(BatchListParams { limit, ..Default::default() }).await,
            ErrorKind::InvalidInput,
            &what,
        );
        let params = PartitionListParams { limit, ..PartitionListParams::new(1) };
        assert_kind(store.partition_list(params).await, ErrorKind::InvalidInput, &what);
        assert_kind(
            store.partition_claim(claim_params(&node, limit)).await,
            ErrorKind::InvalidInput,
            &what,
        );
        let params = PartitionReassignParams { limit };
        assert_kind(store.partition_reassign(params).await, ErrorKind::InvalidInput, &what);
    }

    let name = unique_batch_name("bad");
    let spec = |key: &str| {
        PartitionSpec::new(baton_core::cluster::PartitionKey::new(key).expect("key"), json("{}"))
    };
    let plain = |specs: Vec<PartitionSpec>| {
        specs.into_iter().map(|spec| AssignedPartition { spec, node: None }).collect()
    };
    let oversized = PartitionSpec::new(spec("big").key, json(&"1".repeat(MAX_PARAMS_BYTES + 1)));
    let too_many: Vec<PartitionSpec> =
        (0..=MAX_PARTITIONS).map(|i| spec(&format!("p{i}"))).collect();
    let assigned = vec![AssignedPartition { spec: spec("p0"), node: Some(node.id.clone()) }];
    let cases: Vec<(Strategy, Vec<AssignedPartition>, String)> = vec![
        (Strategy::RoundRobin, Vec::new(), "partition count 0".into()),
        (Strategy::RoundRobin, plain(vec![spec("a"), spec("b"), spec("a")]), r#"key "a""#.into()),
        (Strategy::RoundRobin, plain(too_many), format!("partition count {}", MAX_PARTITIONS + 1)),
        (Strategy::RoundRobin, plain(vec![spec("a"), oversized]), r#"partition "big""#.into()),
        (Strategy::FreeForAll, assigned, r#"partition "p0" to node"#.into()),
    ];
    for (strategy, partitions, named) in cases {
        let params =
            BatchCreateParams { name: name.clone(), strategy, stealing: false, partitions };
        let err = store.batch_create(params).await.expect_err("a bad batch must be refused");
        assert_eq!(err.kind(), ErrorKind::InvalidInput, "{err}");
        assert!(err.to_string().contains(&named), "the error names {named}: {err}");
    }
    let params = BatchListParams { name: Some(name), ..Default::default() };
    assert_eq!(
        store.batch_list(params).await.expect("batch_list").items,
        Vec::new(),
        "nothing half-created"
    );

    let err = store.batch_finish(i64::MAX).await.expect_err("an unknown batch");
    assert_eq!(err.kind(), ErrorKind::NotFound, "{err}");
    assert!(err.to_string().contains(&i64::MAX.to_string()), "the error names the batch: {err}");
    assert_eq!(store.batch_get(i64::MAX).await.expect("batch_get"), None);
    let unknown =
        store.partition_list(PartitionListParams::new(i64::MAX)).await.expect("partition_list");
    assert_eq!((unknown.items, unknown.next), (Vec::new(), None));
    let stranger = register_params(&unique_node("stranger"), 0);
    let beat = baton_core::cluster::NodeHeartbeatParams {
        node: stranger.id,
        token: node.token,
        load: 0,
        partitions: Vec::new(),
    };
    assert_kind(
        store.node_heartbeat(beat).await,
        ErrorKind::LeaseLost,
        "a heartbeat of an unknown node",
    );
}
