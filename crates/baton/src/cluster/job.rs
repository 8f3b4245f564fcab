//! Partitioned jobs defined in Rust: a partitioner, a strategy, a partition handler and
//! optional callbacks for the batch's end.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use baton_core::Result;
use baton_core::cluster::{BatchJob, JsonText, MAX_PARTITIONS, Partition, PartitionSpec, Strategy};
use baton_core::schedule::JobName;

use super::PartitionContext;
use crate::handler_error::{self, HandlerError};

/// The boxed future a [`Partitioner`] returns.
pub type PartitionsFuture = Pin<Box<dyn Future<Output = Result<Vec<PartitionSpec>>> + Send>>;

/// Splits a job's work into partitions when a batch starts.
///
/// Implemented for every `Fn(usize) -> impl Future<Output = Result<Vec<PartitionSpec>>>`: the
/// argument is the number of live nodes, so an async closure is a partitioner.
pub trait Partitioner: Send + Sync + 'static {
    /// The partitions of a new batch, given how many nodes are alive.
    fn partition(&self, live_nodes: usize) -> PartitionsFuture;
}

impl<F, Fut> Partitioner for F
where
    F: Fn(usize) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Vec<PartitionSpec>>> + Send + 'static,
{
    fn partition(&self, live_nodes: usize) -> PartitionsFuture {
        Box::pin(self(live_nodes))
    }
}

/// What a partition handler's future resolves to: the result to store, or the error with its
/// causes on one line.
pub type PartitionResult = std::result::Result<Option<JsonText>, String>;

/// The boxed future a [`PartitionHandler`] returns.
pub type PartitionFuture = Pin<Box<dyn Future<Output = PartitionResult> + Send>>;

/// The code a job runs for each partition.
///
/// Implemented for every `Fn(PartitionContext) -> impl Future<Output = Result<T, E>>` with
/// `T:` [`PartitionOutput`] and `E:` [`Into<HandlerError>`](crate::HandlerError) (any error
/// type, `String`, `anyhow::Error`), so an async closure is a handler. The partition records
/// the error and its chain of causes.
pub trait PartitionHandler: Send + Sync + 'static {
    /// Runs one partition, from its checkpoint if it has one.
    fn run(&self, ctx: PartitionContext) -> PartitionFuture;
}

impl<F, Fut, T, E> PartitionHandler for F
where
    F: Fn(PartitionContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = std::result::Result<T, E>> + Send + 'static,
    T: PartitionOutput,
    E: Into<HandlerError>,
{
    fn run(&self, ctx: PartitionContext) -> PartitionFuture {
        let running = self(ctx);
        Box::pin(async move {
            match running.await {
                Ok(output) => output.into_result().map_err(handler_error::rendered),
                Err(err) => Err(handler_error::rendered(err)),
            }
        })
    }
}

/// What a partition handler may return on success: nothing, or a result stored with the
/// partition and handed to the batch's success callback.
pub trait PartitionOutput {
    /// The result to store; an error fails the partition with its message.
    fn into_result(self) -> Result<Option<JsonText>>;
}

impl PartitionOutput for () {
    fn into_result(self) -> Result<Option<JsonText>> {
        Ok(None)
    }
}

impl PartitionOutput for JsonText {
    fn into_result(self) -> Result<Option<JsonText>> {
        Ok(Some(self))
    }
}

impl PartitionOutput for Option<JsonText> {
    fn into_result(self) -> Result<Option<JsonText>> {
        Ok(self)
    }
}

/// Serialized JSON, kept verbatim (see [`JsonText`]).
impl PartitionOutput for String {
    fn into_result(self) -> Result<Option<JsonText>> {
        JsonText::new(self).map(Some)
    }
}

/// The boxed future a [`BatchCallback`] returns.
pub type CallbackFuture = Pin<Box<dyn Future<Output = ()> + Send>>;

/// Code called once a batch has finished, on the cluster leader.
///
/// Implemented for every `Fn(BatchJob, Vec<Partition>) -> impl Future<Output = ()>`.
pub trait BatchCallback: Send + Sync + 'static {
    /// Called with the finished batch and its partitions: every partition, each with its
    /// result, after a success; the failed ones, each with its error, after a failure.
    fn call(&self, batch: BatchJob, partitions: Vec<Partition>) -> CallbackFuture;
}

impl<F, Fut> BatchCallback for F
where
    F: Fn(BatchJob, Vec<Partition>) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = ()> + Send + 'static,
{
    fn call(&self, batch: BatchJob, partitions: Vec<Partition>) -> CallbackFuture {
        Box::pin(self(batch, partitions))
    }
}

/// A job whose runs (batches) are split into partitions spread over the live nodes.
///
/// Register it on every node of the cluster with
/// [`ClusterBuilder::partitioned`](super::ClusterBuilder::partitioned), and start a batch with
/// [`Cluster::run`](super::Cluster::run): partitions are assigned over every live node (with
/// `free-for-all`, only nodes that have the job claim them), and the callbacks run on the node
/// that leads the cluster when the batch finishes.
#[derive(Clone)]
pub struct PartitionedJob {
    pub(crate) name: JobName,
    pub(crate) strategy: Strategy,
    pub(crate) stealing: bool,
    pub(crate) max_partitions: usize,
    pub(crate) partitioner: Arc<dyn Partitioner>,
    pub(crate) handler: Arc<dyn PartitionHandler>,
    pub(crate) on_success: Option<Arc<dyn BatchCallback>>,
    pub(crate) on_failure: Option<Arc<dyn BatchCallback>>,
}

impl std::fmt::Debug for PartitionedJob {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PartitionedJob")
            .field("name", &self.name)
            .field("strategy", &self.strategy)
            .field("stealing", &self.stealing)
            .field("max_partitions", &self.max_partitions)
            .finish_non_exhaustive()
    }
}

impl PartitionedJob {
    /// A job assigning its partitions round-robin, with at most
    /// [`MAX_PARTITIONS`] partitions per batch and no callbacks.
    pub fn new(
        name: JobName,
        partitioner: impl Partitioner,
        handler: impl PartitionHandler,
    ) -> Self {
        PartitionedJob {
            name,
            strategy: Strategy::RoundRobin,
            stealing: false,
            max_partitions: MAX_PARTITIONS,
            partitioner: Arc::new(partitioner),
            handler: Arc::new(handler),
            on_success: None,
            on_failure: None,
        }
    }

    /// How partitions are spread over the live nodes. With `fixed-node-count(k)` and fewer
    /// than `k` live nodes, every live node is used; with `scale-up`, the pending partitions
    /// are spread again over nodes that join while the batch runs.
    pub fn strategy(mut self, strategy: Strategy) -> Self {
        self.strategy = strategy;
        self
    }

    /// Work stealing (off by default): while a batch runs, a live node with no pending
    /// partition of it takes half of the pending partitions of the node with the most, as the
    /// leader decides every heartbeat interval. Only partitions not yet started move. Refused
    /// with `free-for-all`, where any node claims any partition; `scale-up` rebalances anyway.
    pub fn stealing(mut self, stealing: bool) -> Self {
        self.stealing = stealing;
        self
    }

    /// The most partitions a batch may have (at most [`MAX_PARTITIONS`]); a partitioner
    /// returning more fails the run and creates nothing.
    pub fn max_partitions(mut self, max: usize) -> Self {
        self.max_partitions = max;
        self
    }

    /// Called with every partition and its result once all completed.
    pub fn on_success(mut self, callback: impl BatchCallback) -> Self {
        self.on_success = Some(Arc::new(callback));
        self
    }

    /// Called with the failed partitions once every partition is final and any failed.
    pub fn on_failure(mut self, callback: impl BatchCallback) -> Self {
        self.on_failure = Some(Arc::new(callback));
        self
    }

    /// The job's name.
    pub fn name(&self) -> &JobName {
        &self.name
    }
}
