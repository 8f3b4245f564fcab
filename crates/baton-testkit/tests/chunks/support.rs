//! The parts the scenarios share: a gated reader, writers that stall on request, the job and
//! its nodes, and the expected rows.

use std::future::pending;
use std::ops::Range;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use baton::cluster::{
    BatchJob, Chunk, ChunkWriter, ChunkedStep, Cluster, ClusterConfig, Committed, ItemReader,
    JsonText, NodeId, Partition, PartitionContext, PartitionKey, PartitionSpec, PartitionState,
    PartitionedJob, StepError,
};
use baton::{ElectorConfig, FencingToken, HolderId, Result};
use tokio::sync::mpsc;
use tokio::time::timeout;

use super::Database;

/// The partition's items: `0..ITEMS`.
pub const ITEMS: u64 = 100;
/// Items per chunk.
const INTERVAL: usize = 10;
/// How long a test waits for any one signal.
const PATIENCE: Duration = Duration::from_secs(30);

/// What the handlers report.
#[derive(Debug)]
pub enum Event {
    /// The reader reached its gate, every chunk before it committed, and waits there.
    Gated { token: FencingToken },
    /// A writer stopped in the middle of a chunk and waits there.
    Stalled { token: FencingToken },
    /// A step returned.
    Ended { token: FencingToken, outcome: Result<u64, StepError> },
}

pub type Events = mpsc::UnboundedSender<Event>;

/// Finished batches' partitions, from the success callback.
pub type Finished = mpsc::UnboundedSender<Vec<Partition>>;

/// Reads `0..ITEMS`, waiting forever before the item at its gate, if it has one.
struct Numbers {
    next: u64,
    gate: Option<u64>,
    token: FencingToken,
    events: Events,
}

impl ItemReader for Numbers {
    type Item = u64;
    type Position = u64;

    async fn open(&mut self, from: Option<u64>) -> Result<()> {
        self.next = from.unwrap_or(0);
        Ok(())
    }

    async fn next(&mut self) -> Result<Option<u64>> {
        if self.gate == Some(self.next) {
            let _ = self.events.send(Event::Gated { token: self.token });
            pending::<()>().await;
        }
        if self.next == ITEMS {
            return Ok(None);
        }
        self.next += 1;
        Ok(Some(self.next - 1))
    }

    fn position(&self) -> u64 {
        self.next
    }
}

/// Where a writer stalls, waiting forever: in the chunk starting at this item.
#[derive(Clone)]
pub struct Stall {
    pub chunk: u64,
    pub events: Events,
}

impl Stall {
    async fn here(stall: &Option<Stall>, chunk: &Chunk<u64>) {
        if let Some(stall) = stall.as_ref().filter(|stall| stall.chunk == chunk.items().start) {
            let _ = stall.events.send(Event::Stalled { token: chunk.token() });
            pending::<()>().await;
        }
    }
}

/// Writes each chunk's items and its checkpoint in one transaction; a stalled chunk stalls
/// with half its rows written.
pub struct TableWriter<D> {
    pub db: Arc<D>,
    pub stall: Option<Stall>,
}

impl<D: Database> ChunkWriter<u64> for TableWriter<D> {
    async fn write(&mut self, chunk: &Chunk<u64>) -> Result<Committed> {
        let mut tx = self.db.begin().await;
        for (written, item) in chunk.outputs().iter().enumerate() {
            if written == chunk.outputs().len() / 2 {
                Stall::here(&self.stall, chunk).await;
            }
            D::insert(&mut tx, *item, chunk.token()).await;
        }
        D::checkpoint(&mut tx, chunk.checkpoint()).await?;
        D::commit(tx).await;
        Ok(Committed::WithCheckpoint)
    }
}

/// Rows as an outside sink keeps them: (item, token), in writing order.
pub type Rows = Arc<Mutex<Vec<(i64, i64)>>>;

/// Appends each chunk's items to an outside sink and leaves the checkpoint to the step; a
/// stalled chunk stalls once it is all written, before the step can save its checkpoint.
pub struct SinkWriter {
    pub rows: Rows,
    pub stall: Option<Stall>,
}

impl ChunkWriter<u64> for SinkWriter {
    async fn write(&mut self, chunk: &Chunk<u64>) -> Result<Committed> {
        let rows = chunk.outputs().iter().map(|item| row(*item, chunk.token()));
        self.rows.lock().expect("the sink's lock").extend(rows);
        Stall::here(&self.stall, chunk).await;
        Ok(Committed::OutputsOnly)
    }
}

/// The job `chunks`: one partition, run as a chunked step over [`Numbers`] gated at `gate`,
/// writing with what `writer` makes; its result is the count of items committed.
pub fn job<W: ChunkWriter<u64> + 'static>(
    writer: impl Fn() -> W + Send + Sync + 'static,
    gate: Option<u64>,
    events: &Events,
    finished: &Finished,
) -> PartitionedJob {
    let partitioner = |_live: usize| async {
        let spec = PartitionSpec::new(PartitionKey::new("all")?, JsonText::new("{}")?);
        Ok(vec![spec])
    };
    let events = events.clone();
    let handler = move |ctx: PartitionContext| {
        let (writer, events) = (writer(), events.clone());
        async move {
            let token = ctx.token();
            let reader = Numbers { next: 0, gate, token, events: events.clone() };
            let step = ChunkedStep::new(reader, |n: u64| Ok::<_, String>(n), writer)
                .commit_interval(INTERVAL)
                .map_err(|err| err.to_string())?;
            let outcome = step.run(&ctx).await;
            let answer = outcome.as_ref().map(u64::to_string).map_err(ToString::to_string);
            let _ = events.send(Event::Ended { token, outcome });
            answer
        }
    };
    let finished = finished.clone();
    PartitionedJob::new("chunks".parse().expect("a valid name"), partitioner, handler).on_success(
        move |_batch: BatchJob, partitions: Vec<Partition>| {
            let _ = finished.send(partitions);
            std::future::ready(())
        },
    )
}

/// Starts node `id` with `job`, on stores of its own.
pub async fn node<D: Database>(db: &D, id: &str, job: PartitionedJob) -> Cluster {
    let (leases, store) = db.stores().await;
    let mut config = ClusterConfig::new(NodeId::new(id).expect("a valid id"), "test-host");
    config.heartbeat_interval = Duration::from_millis(100);
    config.unreachable_after = Duration::from_secs(1);
    config.removed_after = Duration::from_secs(120);
    config.shutdown_grace = Duration::from_millis(200);
    let holder = HolderId::new(id).expect("a valid holder");
    config.elector = ElectorConfig::new(holder).with_ttl(Duration::from_secs(2));
    Cluster::builder(leases, store)
        .config(config)
        .partitioned(job)
        .start()
        .await
        .expect("the node starts")
}

/// What `future` answers, within the test's patience.
pub async fn within<T>(future: impl Future<Output = T>, what: &str) -> T {
    timeout(PATIENCE, future).await.unwrap_or_else(|_| panic!("timed out waiting for {what}"))
}

/// The next message, within the test's patience.
pub async fn next<T>(receiver: &mut mpsc::UnboundedReceiver<T>, what: &str) -> T {
    let message = within(receiver.recv(), what).await;
    message.unwrap_or_else(|| panic!("no more senders while waiting for {what}"))
}

/// Waits for the end of a step run under `token`, and answers its outcome.
pub async fn ended(
    receiver: &mut mpsc::UnboundedReceiver<Event>,
    token: Option<FencingToken>,
) -> (FencingToken, Result<u64, StepError>) {
    match next(receiver, "a step to end").await {
        Event::Ended { token: ended, outcome } if token.is_none_or(|t| t == ended) => {
            (ended, outcome)
        }
        other => panic!("expected a step under {token:?} to end, got {other:?}"),
    }
}

fn row(item: u64, token: FencingToken) -> (i64, i64) {
    (i64::try_from(item).expect("a small item"), token.to_store())
}

/// The rows of `items` written under `token`.
pub fn under(items: Range<u64>, token: FencingToken) -> Vec<(i64, i64)> {
    items.map(|item| row(item, token)).collect()
}

/// The checkpoint a step saves after `items` items of [`Numbers`].
pub fn checkpoint(items: u64) -> String {
    format!(r#"{{"items":{items},"position":{items}}}"#)
}

/// Checks the finished partition: resumed once under `token`, every item committed. Its
/// progress column is not checked: a heartbeat sent before the last chunk committed may land
/// after it and set it back.
pub fn assert_finished(partitions: &[Partition], token: FencingToken) {
    let [partition] = partitions else { panic!("one partition, got {partitions:?}") };
    assert_eq!(partition.state, PartitionState::Completed);
    assert_eq!((partition.attempts, partition.token), (2, Some(token)));
    assert_eq!(partition.result.as_ref().map(JsonText::as_str), Some("100"));
    let saved = partition.checkpoint.as_ref().map(JsonText::as_str);
    assert_eq!(saved, Some(checkpoint(ITEMS).as_str()));
}
