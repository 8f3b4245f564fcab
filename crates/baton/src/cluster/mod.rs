//! Cluster membership and partitioned batch jobs: every node registers and heartbeats, runs
//! the partitions it claims under their fencing tokens and checkpoints them; the elected
//! leader sweeps silent nodes, moves their partitions and finishes batches.
//!
//! ```no_run
//! # use std::sync::Arc;
//! # async fn example(
//! #     leases: Arc<dyn baton::LeaseStore>,
//! #     store: Arc<dyn baton::cluster::ClusterStore>,
//! # ) -> baton::Result<()> {
//! use baton::cluster::{BatchJob, Cluster, JsonText, Partition, PartitionContext};
//! use baton::cluster::{PartitionKey, PartitionSpec, PartitionedJob, Strategy};
//!
//! let import = PartitionedJob::new(
//!     "import".parse()?,
//!     // Ten slices of 100,000 rows, whatever the number of live nodes.
//!     |_live_nodes: usize| async move {
//!         (0..10)
//!             .map(|i| {
//!                 let params = JsonText::new(format!(r#"{{"from":{}}}"#, i * 100_000))?;
//!                 Ok(PartitionSpec::new(PartitionKey::new(format!("rows-{i}"))?, params))
//!             })
//!             .collect::<baton::Result<Vec<_>>>()
//!     },
//!     |ctx: PartitionContext| async move {
//!         // Resume after the last row checkpointed by any node that ran this partition.
//!         let done: u64 = ctx.resume_from().and_then(|c| c.as_str().parse().ok()).unwrap_or(0);
//!         for row in done..100_000 {
//!             // ... import the row, fenced by ctx.token() ...
//!             if row % 10_000 == 9_999 {
//!                 ctx.checkpoint(JsonText::new((row + 1).to_string())?, row + 1).await?;
//!             }
//!         }
//!         Ok::<_, baton::Error>(format!(r#"{{"rows":{}}}"#, 100_000 - done))
//!     },
//! )
//! .strategy(Strategy::LeastLoaded)
//! .on_success(|batch: BatchJob, partitions: Vec<Partition>| async move {
//!     println!("batch {} imported {} slices", batch.id, partitions.len());
//! });
//! let cluster = Cluster::builder(leases, store).partitioned(import).start().await?;
//! let batch = cluster.run(&"import".parse()?).await?;
//! // ... until the service stops:
//! cluster.shutdown().await;
//! # Ok(())
//! # }
//! ```
//!
//! A batch runs on demand with [`Cluster::run`]; to run one on a schedule, call it from a
//! [scheduler](crate::scheduler) job, which fires once per tick across the cluster (a retried
//! execution starts another batch):
//!
//! ```no_run
//! # use std::sync::Arc;
//! # async fn example(
//! #     cluster: baton::cluster::Cluster,
//! #     leases: Arc<dyn baton::LeaseStore>,
//! #     jobs: Arc<dyn baton::core::JobStore>,
//! # ) -> baton::Result<()> {
//! use baton::scheduler::{Job, JobContext, Scheduler};
//!
//! let cluster = Arc::new(cluster);
//! let import: baton::core::JobName = "import".parse()?;
//! let nightly = Job::cron("nightly-import", "0 0 2 * * *").handler({
//!     let cluster = cluster.clone();
//!     move |_: JobContext| {
//!         let (cluster, import) = (cluster.clone(), import.clone());
//!         async move { cluster.run(&import).await.map(|_batch| ()) }
//!     }
//! })?;
//! let scheduler = Scheduler::builder(leases, jobs).job(nightly).start().await?;
//! // ... until the service stops:
//! scheduler.shutdown().await;
//! cluster.shutdown().await;
//! # Ok(())
//! # }
//! ```
//!
//! Safety rests on the store's fencing (I7) and on stopping in time (I3): a node whose
//! heartbeats go unconfirmed for 6/10 of the unreachable threshold stops its partitions, and
//! aborts those that do not return within 1/5 of it, before the leader can find it
//! unreachable and move them; it then registers again as a new incarnation. Every checkpoint
//! and outcome is a compare-and-set on the claim's token, so a late write of a moved partition
//! is refused.

mod builder;
mod chunks;
mod config;
mod context;
mod job;
mod launch;
mod leader;
mod next_sweep;
mod pages;
mod rebalance;
mod stage;
mod worker;

use std::sync::Arc;

use baton_core::schedule::JobName;
use baton_core::{Error, ErrorKind, LeaseStore, Result};
use tokio::sync::watch;
use tokio_util::sync::DropGuard;

pub use baton_core::cluster::{
    BatchJob, BatchState, ClusterStore, JsonText, NodeId, Partition, PartitionKey, PartitionSpec,
    PartitionState, Strategy,
};
pub use builder::ClusterBuilder;
pub use chunks::{
    Chunk, ChunkWriter, ChunkedStep, Committed, ItemProcessor, ItemReader, ReadPosition, StepError,
};
pub use config::ClusterConfig;
pub use context::PartitionContext;
pub use job::{
    BatchCallback, CallbackFuture, PartitionFuture, PartitionHandler, PartitionOutput,
    PartitionResult, PartitionedJob, Partitioner, PartitionsFuture,
};

use crate::elector::StepDown;
use crate::{Elector, Leadership};
use stage::Stage;
use worker::{Jobs, Worker};

/// A running cluster node. Call [`Cluster::shutdown`] to leave gracefully; dropping it
/// instead stops its work at once without leaving, as a crash would, so its partitions move
/// only once it is found unreachable.
pub struct Cluster {
    worker: Arc<Worker>,
    jobs: Arc<Jobs>,
    elector: Elector,
    leadership: watch::Receiver<Leadership>,
    step_downs: StepDown,
    claiming: Stage,
    beating: Stage,
    leading: Stage,
    _halt: DropGuard,
}

impl std::fmt::Debug for Cluster {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cluster").field("node", self.node()).finish_non_exhaustive()
    }
}

impl Cluster {
    /// A builder over a lease store (for the leader election) and a cluster store.
    pub fn builder(leases: Arc<dyn LeaseStore>, store: Arc<dyn ClusterStore>) -> ClusterBuilder {
        ClusterBuilder::new(leases, store)
    }

    /// This node's id.
    pub fn node(&self) -> &NodeId {
        self.worker.node()
    }

    /// Whether this node is the cluster leader, and the term's token when it is.
    pub fn leadership(&self) -> watch::Receiver<Leadership> {
        self.leadership.clone()
    }

    /// Gives up the cluster leadership if this node holds it, so that another node takes over
    /// at once (see [`Campaign::step_down`](crate::Campaign::step_down)); answers whether this
    /// node was leading. The node keeps working, and campaigns again later.
    pub async fn step_down(&self) -> bool {
        self.step_downs.request().await
    }

    /// The cluster store this node works on.
    pub fn store(&self) -> &Arc<dyn ClusterStore> {
        self.worker.store()
    }

    /// Starts a batch of a partitioned job registered on this node and answers its id: lists
    /// the live nodes, asks the job's partitioner for the partitions, checks them, assigns
    /// them by the job's strategy and stores them at once. Nothing is stored when the
    /// partitioner fails or returns partitions that are refused (none, too many, duplicate
    /// keys, oversized parameters); `NotFound` when the job is not registered here.
    pub async fn run(&self, job: &JobName) -> Result<i64> {
        let registered = self.jobs.get(job).ok_or_else(|| {
            Error::new(
                ErrorKind::NotFound,
                format!("partitioned job {job} is not registered on node {}", self.node()),
            )
        })?;
        let batch = launch::launch(&**self.store(), registered).await?;
        self.worker.nudge();
        Ok(batch.id)
    }

    /// Graceful shutdown: stops claiming, waits for running partitions up to the grace period
    /// while still heartbeating them, stops the rest, leaves the cluster (which hands every
    /// partition of this node over at once), then stops leading and releases the leadership
    /// so that another node takes over at once.
    pub async fn shutdown(&self) {
        self.claiming.end().await;
        self.worker.drain().await;
        self.beating.end().await;
        self.worker.leave().await;
        self.leading.end().await;
        self.elector.shutdown().await;
    }
}
