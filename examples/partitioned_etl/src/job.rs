//! The partitioned job: its partitioner cuts the input into line ranges, its handler converts
//! one range, saving a checkpoint every commit interval.

use std::path::PathBuf;
use std::sync::Arc;

use baton::ErrorKind;
use baton::cluster::{JsonText, PartitionContext, PartitionKey, PartitionSpec, PartitionedJob};
use baton::core::schedule::JobName;

use crate::claim::{Checkpoint, Claim};
use crate::error::{EtlError, from_json, to_json};
use crate::slices::{Slice, slices};

/// Where the ETL reads and writes, and how it cuts and commits its work.
#[derive(Debug, Clone)]
pub struct Etl {
    /// The input CSV.
    pub input: PathBuf,
    /// The directory each batch writes its output under, in `batch-ID`.
    pub out: PathBuf,
    /// Partitions a batch is cut into (fewer for a small input, see [`slices`]).
    pub partitions: usize,
    /// Lines converted between two checkpoints.
    pub commit_interval: u64,
}

impl Etl {
    /// The partitioned job `name` running this ETL. Register it on every node.
    pub fn job(&self, name: JobName) -> PartitionedJob {
        let (planner, runner) = (Arc::new(self.clone()), Arc::new(self.clone()));
        let partitioner = move |_live_nodes: usize| {
            let etl = planner.clone();
            async move { etl.plan().await.map_err(store_error) }
        };
        let handler = move |ctx: PartitionContext| {
            let etl = runner.clone();
            async move { etl.run(ctx).await }
        };
        PartitionedJob::new(name, partitioner, handler)
    }

    /// The directory batch `batch` writes its output in.
    pub fn batch_dir(&self, batch: i64) -> PathBuf {
        self.out.join(format!("batch-{batch}"))
    }

    /// One transferable partition per slice of the input, keyed `part-NNNNN` in line order.
    async fn plan(&self) -> Result<Vec<PartitionSpec>, EtlError> {
        let (input, count) = (self.input.clone(), self.partitions);
        let cut = blocking(move || slices(&input, count)).await?;
        let specs = cut.iter().enumerate().map(|(index, slice)| {
            let key = PartitionKey::new(format!("part-{index:05}"))?;
            Ok(PartitionSpec::new(key, to_json(slice)?))
        });
        specs.collect()
    }

    /// Converts one partition from its checkpoint on, saving a checkpoint after every commit
    /// interval but the last; answers its [`Done`](crate::Done) as JSON.
    async fn run(&self, ctx: PartitionContext) -> Result<JsonText, EtlError> {
        let slice: Slice = from_json("partition parameters", ctx.params().as_str())?;
        let from: Option<Checkpoint> =
            ctx.resume_from().map(|text| from_json("checkpoint", text.as_str())).transpose()?;
        let (input, dir) = (self.input.clone(), self.batch_dir(ctx.batch()));
        let (key, token) = (ctx.key().to_string(), ctx.token().get());
        let mut claim =
            blocking(move || Claim::open(&input, &dir, &key, slice, from, token)).await?;
        let interval = self.commit_interval;
        loop {
            claim = blocking(move || claim.advance(interval).map(|()| claim)).await?;
            if claim.is_done() {
                return to_json(&claim.done());
            }
            // Saved also when told to stop, so that the next claim resumes from here.
            ctx.checkpoint(to_json(&claim.checkpoint())?, claim.progress()).await?;
            if ctx.is_cancelled() {
                return Err(EtlError::Stopped);
            }
        }
    }
}

/// Runs blocking file work on tokio's blocking threads.
pub(crate) async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, EtlError> + Send + 'static,
) -> Result<T, EtlError> {
    tokio::task::spawn_blocking(work).await?
}

/// A partitioner's error as the runtime takes it: nothing is created, and the run fails with
/// the reason.
fn store_error(err: EtlError) -> baton::Error {
    match err {
        EtlError::Store(err) => err,
        other => baton::Error::new(ErrorKind::InvalidInput, other.to_string()),
    }
}
