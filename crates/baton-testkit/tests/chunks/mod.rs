//! Chunked steps over a real database, shared by `chunks_sqlite.rs` and `chunks_postgres.rs`:
//! one partition of 100 items written 10 a chunk, cut off part-way and resumed under a new
//! token. Written with `checkpoint_in` to a table of the test's own in the cluster store's
//! database, every item lands exactly once; written to an outside sink, the chunk cut off
//! between its write and its checkpoint lands twice.

mod support;

use std::ops::Range;
use std::sync::Arc;

use async_trait::async_trait;
use baton::cluster::{
    ClusterStore, JsonText, NodeId, PartitionKey, PartitionSpec, PartitionState, StepError,
};
use baton::core::cluster::{
    AssignedPartition, BatchCreateParams, Node, NodeRegisterParams, PartitionCheckpointParams,
    PartitionClaimParams, PartitionListParams, Strategy,
};
use baton::{ErrorKind, FencingToken, LeaseStore, Result};
use tokio::sync::mpsc;

use support::{
    Event, ITEMS, SinkWriter, Stall, TableWriter, assert_finished, checkpoint, ended, job, next,
    node, under,
};

/// One test per case, on the database that `$open` (an async expression) opens.
#[macro_export]
macro_rules! chunk_cases {
    ($open:expr) => {
        #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
        async fn a_stale_claims_chunk_rolls_back_whole() {
            chunks::stale_chunk($open.await).await;
        }

        #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
        async fn a_partition_cut_between_chunks_resumes_after_the_last_one() {
            chunks::cut_between_chunks($open.await).await;
        }

        #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
        async fn a_partition_cut_mid_chunk_rolls_it_back_and_resumes_elsewhere() {
            chunks::cut_mid_chunk($open.await).await;
        }

        #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
        async fn an_outside_sink_repeats_the_chunk_cut_before_its_checkpoint() {
            chunks::outside_sink_cut_before_checkpoint($open.await).await;
        }

        #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
        async fn a_checkpoint_outside_a_transaction_is_refused() {
            chunks::checkpoint_outside_a_transaction($open.await).await;
        }
    };
}

/// A database holding the cluster store and the test's target table of (item, token) rows.
#[async_trait]
pub trait Database: Send + Sync + 'static {
    /// A write transaction on the test's own connections.
    type Tx: Send;

    /// The stores of a new backend on the database, as a separate process would open them.
    async fn stores(&self) -> (Arc<dyn LeaseStore>, Arc<dyn ClusterStore>);

    /// Begins a write transaction.
    async fn begin(&self) -> Self::Tx;

    /// Adds a row to the target table.
    async fn insert(tx: &mut Self::Tx, item: u64, token: FencingToken);

    /// The backend's `checkpoint_in`.
    async fn checkpoint(tx: &mut Self::Tx, params: &PartitionCheckpointParams) -> Result<()>;

    /// Commits.
    async fn commit(tx: Self::Tx);

    /// The backend's `checkpoint_in` on a connection outside any transaction.
    async fn checkpoint_outside(&self, params: &PartitionCheckpointParams) -> Result<()>;

    /// Every row of the target table, by item then token.
    async fn rows(&self) -> Vec<(i64, i64)>;
}

/// A node cut off between chunks (the process dies while its reader waits) registers again;
/// the partition resumes under a new token after the last committed chunk.
pub async fn cut_between_chunks<D: Database>(db: Arc<D>) {
    let (events, mut received) = mpsc::unbounded_channel();
    let (finished, mut finishes) = mpsc::unbounded_channel();
    let writer = || {
        let db = db.clone();
        move || TableWriter { db: db.clone(), stall: None }
    };
    let first = node(&*db, "chunks-a", job(writer(), Some(30), &events, &finished)).await;
    let batch = first.run(&"chunks".parse().unwrap()).await.expect("the batch starts");
    let Event::Gated { token: old } = next(&mut received, "the reader's gate").await else {
        panic!("expected the reader to reach its gate");
    };
    let (_, store) = db.stores().await;
    let params = PartitionListParams::new(batch);
    let at_cut = store.partition_list(params).await.unwrap().items.remove(0);
    assert_eq!((at_cut.state, at_cut.token), (PartitionState::Claimed, Some(old)));
    let saved = at_cut.checkpoint.as_ref().map(JsonText::as_str);
    assert_eq!(saved, Some(checkpoint(30).as_str()));
    assert_eq!(db.rows().await, under(0..30, old), "three chunks committed");

    drop(first);
    let (_, outcome) = ended(&mut received, Some(old)).await;
    assert!(matches!(outcome, Err(StepError::Stopped { committed: 30 })), "{outcome:?}");

    let again = node(&*db, "chunks-a", job(writer(), None, &events, &finished)).await;
    let (new, outcome) = ended(&mut received, None).await;
    assert!(new > old, "resumed under {new}, after {old}");
    assert_eq!(outcome.expect("the resumed step finishes"), ITEMS);
    assert_finished(&next(&mut finishes, "the success callback").await, new);
    let expected = [under(0..30, old), under(30..ITEMS, new)].concat();
    assert_eq!(db.rows().await, expected, "each item once");
    again.shutdown().await;
}

/// A node cut off in the middle of a chunk's transaction: the chunk rolls back whole, the
/// leader moves the partition to the other node, and it resumes after the last committed
/// chunk.
pub async fn cut_mid_chunk<D: Database>(db: Arc<D>) {
    let (events, mut received) = mpsc::unbounded_channel();
    let (finished, mut finishes) = mpsc::unbounded_channel();
    let writer = |stall: Option<Stall>| {
        let db = db.clone();
        move || TableWriter { db: db.clone(), stall: stall.clone() }
    };
    let b = node(&*db, "chunks-b", job(writer(None), None, &events, &finished)).await;
    let mut leadership = b.leadership();
    support::within(leadership.wait_for(|l| l.token().is_some()), "node b to lead").await.unwrap();
    let stall = Stall { chunk: 30, events: events.clone() };
    let a = node(&*db, "chunks-a", job(writer(Some(stall)), None, &events, &finished)).await;
    // Round-robin over the nodes in id order: the partition goes to node a.
    b.run(&"chunks".parse().unwrap()).await.expect("the batch starts");
    let Event::Stalled { token: old } = next(&mut received, "the writer to stall").await else {
        panic!("expected the writer to stall mid-chunk");
    };
    assert_eq!(db.rows().await, under(0..30, old), "the open chunk is not visible");

    drop(a);
    let (_, outcome) = ended(&mut received, Some(old)).await;
    assert!(matches!(outcome, Err(StepError::Stopped { committed: 30 })), "{outcome:?}");

    let (new, outcome) = ended(&mut received, None).await;
    assert!(new > old, "resumed under {new}, after {old}");
    assert_eq!(outcome.expect("the resumed step finishes"), ITEMS);
    let partitions = next(&mut finishes, "the success callback").await;
    assert_finished(&partitions, new);
    assert_eq!(partitions[0].node.as_ref().map(NodeId::as_str), Some("chunks-b"));
    let expected = [under(0..30, old), under(30..ITEMS, new)].concat();
    assert_eq!(db.rows().await, expected, "each item once");
    b.shutdown().await;
}

/// A writer to an outside sink leaves the checkpoint to the step: a node cut off after a
/// chunk's durable write and before its checkpoint writes that chunk again on resume (at
/// least once), and nothing else twice.
pub async fn outside_sink_cut_before_checkpoint<D: Database>(db: Arc<D>) {
    let (events, mut received) = mpsc::unbounded_channel();
    let (finished, mut finishes) = mpsc::unbounded_channel();
    let rows = support::Rows::default();
    let writer = |stall: Option<Stall>| {
        let rows = rows.clone();
        move || SinkWriter { rows: rows.clone(), stall: stall.clone() }
    };
    let stall = Stall { chunk: 30, events: events.clone() };
    let first = node(&*db, "chunks-a", job(writer(Some(stall)), None, &events, &finished)).await;
    first.run(&"chunks".parse().unwrap()).await.expect("the batch starts");
    let Event::Stalled { token: old } = next(&mut received, "the writer to stall").await else {
        panic!("expected the writer to stall after its write");
    };
    drop(first);
    let (_, outcome) = ended(&mut received, Some(old)).await;
    assert!(matches!(outcome, Err(StepError::Stopped { committed: 30 })), "{outcome:?}");

    let again = node(&*db, "chunks-a", job(writer(None), None, &events, &finished)).await;
    let (new, outcome) = ended(&mut received, None).await;
    assert_eq!(outcome.expect("the resumed step finishes"), ITEMS);
    assert_finished(&next(&mut finishes, "the success callback").await, new);
    let written = rows.lock().unwrap().clone();
    let expected = [under(0..40, old), under(30..ITEMS, new)].concat();
    assert_eq!(written, expected, "items 30..40 twice, every other item once");
    again.shutdown().await;
}

/// A chunk written under a claim that is no longer current rolls back whole: its checkpoint
/// is refused, and its rows with it.
pub async fn stale_chunk<D: Database>(db: Arc<D>) {
    let (_, store) = db.stores().await;
    let registration = NodeRegisterParams {
        id: NodeId::new("chunks-stale").unwrap(),
        host: "test-host".into(),
        version: "1".into(),
        load: 0,
    };
    let node = store.node_register(registration.clone()).await.unwrap();
    let spec = PartitionSpec::new(PartitionKey::new("all").unwrap(), JsonText::new("{}").unwrap());
    let partitions = vec![AssignedPartition { spec, node: Some(node.id.clone()) }];
    let name = "chunks".parse().unwrap();
    let params =
        BatchCreateParams { name, strategy: Strategy::RoundRobin, stealing: false, partitions };
    let batch = store.batch_create(params).await.unwrap();
    let claim = |node: &Node| PartitionClaimParams {
        node: node.id.clone(),
        token: node.token,
        limit: 1,
        jobs: Vec::new(),
    };
    let first = store.partition_claim(claim(&node)).await.unwrap().remove(0);
    let old = first.token.unwrap();
    let write = |items: Range<u64>, token: FencingToken| {
        let db = db.clone();
        let checkpoint = JsonText::new(checkpoint(items.end)).unwrap();
        let params =
            PartitionCheckpointParams { id: first.id, token, checkpoint, progress: items.end };
        async move {
            let mut tx = db.begin().await;
            for item in items {
                D::insert(&mut tx, item, token).await;
            }
            D::checkpoint(&mut tx, &params).await?;
            D::commit(tx).await;
            Ok::<_, baton::Error>(())
        }
    };
    write(0..10, old).await.expect("the current claim commits");

    // The node registers again: its claim moves, and the next claim carries a greater token.
    let node = store.node_register(registration).await.unwrap();
    let second = store.partition_claim(claim(&node)).await.unwrap().remove(0);
    let new = second.token.unwrap();
    assert!(new > old, "claimed again under {new}, after {old}");
    assert_eq!(second.checkpoint.as_ref().map(JsonText::as_str), Some(checkpoint(10).as_str()));

    let err = write(10..20, old).await.expect_err("the stale claim is refused");
    assert_eq!(err.kind(), ErrorKind::LeaseLost);
    assert_eq!(db.rows().await, under(0..10, old), "the stale chunk rolled back");
    write(10..20, new).await.expect("the current claim commits");
    let list = PartitionListParams::new(batch.id);
    let stored = store.partition_list(list).await.unwrap().items.remove(0);
    let saved = stored.checkpoint.as_ref().map(JsonText::as_str);
    assert_eq!((saved, stored.progress), (Some(checkpoint(20).as_str()), 20));
    let expected = [under(0..10, old), under(10..20, new)].concat();
    assert_eq!(db.rows().await, expected, "each item once");
}

/// `checkpoint_in` refuses a connection outside a transaction, where it could not commit with
/// anything.
pub async fn checkpoint_outside_a_transaction<D: Database>(db: Arc<D>) {
    let params = PartitionCheckpointParams {
        id: 1,
        token: FencingToken::new(1).unwrap(),
        checkpoint: JsonText::new(checkpoint(10)).unwrap(),
        progress: 10,
    };
    let err = db.checkpoint_outside(&params).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidInput);
    assert!(
        err.to_string().starts_with("checkpoint of partition 1 outside a transaction"),
        "{err}"
    );
}
