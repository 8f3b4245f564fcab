//! Chunked steps: a partition's items read, processed and written one commit interval at a
//! time, each chunk committed with the checkpoint after it.
//!
//! The overview and an example are on [`ChunkedStep`], re-exported by `baton::cluster`.

mod chunker;
mod error;
mod read;
mod write;

use baton_core::{Error, Result};

pub use error::StepError;
pub use read::{ItemProcessor, ItemReader, ReadPosition};
pub use write::{Chunk, ChunkWriter, Committed};

use super::PartitionContext;
use chunker::Chunker;

/// A partition's work as a reader, a processor and a writer, committed one chunk at a time.
///
/// An [`ItemReader`] yields the partition's items from the start or from a saved position, an
/// [`ItemProcessor`] turns each into an output, and a [`ChunkWriter`] writes each [`Chunk`] of
/// outputs. A writer to the cluster store's own database saves [`Chunk::checkpoint`] with
/// `checkpoint_in` in the transaction of its outputs ([`Committed::WithCheckpoint`]): the
/// chunk and its checkpoint commit together, and a claim that is no longer current rolls the
/// whole chunk back, so a resumed partition neither skips nor repeats a committed chunk. A
/// writer to another sink answers [`Committed::OutputsOnly`] once its write is durable, and the
/// step saves the checkpoint after it: a chunk cut off in between is written again on resume.
///
/// ```no_run
/// use baton::cluster::{Chunk, ChunkWriter, ChunkedStep, Committed, ItemReader, PartitionContext};
/// use baton::{Error, ErrorKind};
/// use sqlx::{Connection, SqlitePool};
///
/// /// The numbers below `end`; the position is the next one.
/// struct Numbers {
///     next: u64,
///     end: u64,
/// }
///
/// impl ItemReader for Numbers {
///     type Item = u64;
///     type Position = u64;
///
///     async fn open(&mut self, from: Option<u64>) -> baton::Result<()> {
///         self.next = from.unwrap_or(0);
///         Ok(())
///     }
///
///     async fn next(&mut self) -> baton::Result<Option<u64>> {
///         let item = (self.next < self.end).then_some(self.next);
///         self.next += u64::from(item.is_some());
///         Ok(item)
///     }
///
///     fn position(&self) -> u64 {
///         self.next
///     }
/// }
///
/// /// Squares, written to a table in the cluster store's SQLite file.
/// struct Squares(SqlitePool);
///
/// impl ChunkWriter<i64> for Squares {
///     async fn write(&mut self, chunk: &Chunk<i64>) -> baton::Result<Committed> {
///         let failed = |e: sqlx::Error| Error::new(ErrorKind::Unavailable, e.to_string());
///         let mut conn = self.0.acquire().await.map_err(failed)?;
///         let mut tx = conn.begin_with("BEGIN IMMEDIATE").await.map_err(failed)?;
///         for (n, square) in chunk.items().zip(chunk.outputs()) {
///             sqlx::query("INSERT INTO squares (n, square) VALUES (?, ?)")
///                 .bind(n as i64)
///                 .bind(*square)
///                 .execute(&mut *tx)
///                 .await
///                 .map_err(failed)?;
///         }
///         baton::sqlite::checkpoint_in(&mut tx, chunk.checkpoint()).await?;
///         tx.commit().await.map_err(failed)?;
///         Ok(Committed::WithCheckpoint)
///     }
/// }
///
/// async fn handler(ctx: PartitionContext, pool: SqlitePool) -> baton::Result<()> {
///     let reader = Numbers { next: 0, end: 1_000_000 };
///     let square = |n: u64| i64::try_from(n * n);
///     let step = ChunkedStep::new(reader, square, Squares(pool)).commit_interval(500)?;
///     let committed = step.run(&ctx).await?;
///     println!("partition {} committed {committed} items", ctx.id());
///     Ok(())
/// }
/// ```
pub struct ChunkedStep<R, P, W> {
    reader: R,
    processor: P,
    writer: W,
    commit_interval: usize,
}

impl<R, P, W> std::fmt::Debug for ChunkedStep<R, P, W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChunkedStep")
            .field("commit_interval", &self.commit_interval)
            .finish_non_exhaustive()
    }
}

impl<R, P, W> ChunkedStep<R, P, W>
where
    R: ItemReader,
    P: ItemProcessor<R::Item>,
    W: ChunkWriter<P::Output>,
{
    /// A step committing every 1,000 items.
    pub fn new(reader: R, processor: P, writer: W) -> Self {
        ChunkedStep { reader, processor, writer, commit_interval: 1000 }
    }

    /// How many items each chunk holds (the last one may hold fewer); `InvalidInput` for 0.
    pub fn commit_interval(mut self, items: usize) -> Result<Self> {
        if items == 0 {
            return Err(Error::invalid_input(
                "invalid commit interval 0: expected at least 1 item per chunk",
            ));
        }
        self.commit_interval = items;
        Ok(self)
    }

    /// Runs the partition of `ctx` to its end, resuming after its last checkpoint, and
    /// answers how many items it has committed, those of earlier claims included.
    ///
    /// Each chunk's progress is reported to the context. The step checks that the claim is
    /// still valid before each write, and stops at once, dropping the chunk in flight, when
    /// the context is cancelled ([`StepError::Stopped`]).
    pub async fn run(self, ctx: &PartitionContext) -> Result<u64, StepError> {
        let mut committed = 0;
        let finished = {
            let driving = self.drive(ctx, &mut committed);
            tokio::select! {
                biased;
                () = ctx.cancelled() => None,
                done = driving => Some(done),
            }
        };
        match finished {
            Some(done) => done.map(|()| committed),
            None => Err(StepError::Stopped { committed }),
        }
    }

    /// Reads, processes and writes chunk after chunk, keeping `committed` up to date.
    async fn drive(self, ctx: &PartitionContext, committed: &mut u64) -> Result<(), StepError> {
        let ChunkedStep { reader, processor, mut writer, commit_interval } = self;
        let mut chunker = Chunker::new(reader, processor, commit_interval, ctx.id(), ctx.token());
        *committed = chunker.open(ctx.resume_from()).await?;
        let mut outputs = Vec::new();
        while let Some(chunk) = chunker.next(outputs).await? {
            let items = chunk.items();
            let failed = |source| StepError::Write { items: items.clone(), source };
            ctx.ensure_valid().map_err(failed)?;
            match writer.write(&chunk).await.map_err(failed)? {
                Committed::WithCheckpoint => ctx.set_progress(items.end),
                Committed::OutputsOnly => {
                    let state = chunk.checkpoint().checkpoint.clone();
                    ctx.checkpoint(state, items.end).await.map_err(failed)?;
                }
            }
            *committed = items.end;
            outputs = chunk.into_outputs();
        }
        Ok(())
    }
}
