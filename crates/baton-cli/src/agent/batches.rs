//! Partitioned command jobs: each `[[batch]]` becomes a partitioned job whose partitions run
//! the command, and whose command saves progress by printing checkpoint directives.

use std::sync::Arc;

use baton::cluster::{JsonText, PartitionContext, PartitionedJob};
use baton::core::cluster::MAX_ERROR_BYTES;
use tokio::sync::mpsc;

use super::config::{CommandBatch, CommandSpec};
use super::directive::{self, Directive};
use super::lines::LineSplitter;
use super::runner::Runner;

/// The longest directive line read: a checkpoint of the largest JSON text a store keeps, and
/// room for the directive and the progress.
const MAX_DIRECTIVE_BYTES: usize = baton::core::cluster::MAX_JSON_BYTES + 64;

/// The partitioned job that runs `batch`'s command once per partition.
pub fn partitioned_job(batch: &CommandBatch, runner: Runner) -> PartitionedJob {
    let specs = Arc::new(batch.partitions.clone());
    let command = Arc::new(batch.command.clone());
    let partitioner = move |_live_nodes: usize| {
        let specs = specs.clone();
        async move { Ok(specs.to_vec()) }
    };
    let handler = move |ctx: PartitionContext| {
        let (command, runner) = (command.clone(), runner.clone());
        async move { run(&runner, &command, &ctx).await }
    };
    PartitionedJob::new(batch.name.clone(), partitioner, handler)
        .strategy(batch.strategy)
        .stealing(batch.stealing)
}

/// Runs one partition: the command with the partition's variables, its checkpoint directives
/// saved as they come. Anything but exit status 0 fails the partition, with the end of the
/// command's output in the error.
async fn run(runner: &Runner, command: &CommandSpec, ctx: &PartitionContext) -> Result<(), String> {
    let mut vars = vec![
        ("BATON_JOB", ctx.job().to_string()),
        ("BATON_BATCH_ID", ctx.batch().to_string()),
        ("BATON_PARTITION_ID", ctx.id().to_string()),
        ("BATON_PARTITION_KEY", ctx.key().to_string()),
        ("BATON_PARTITION_PARAMS", ctx.params().to_string()),
        ("BATON_FENCING_TOKEN", ctx.token().to_string()),
        ("BATON_ATTEMPT", ctx.attempt().to_string()),
    ];
    if let Some(checkpoint) = ctx.resume_from() {
        vars.push(("BATON_CHECKPOINT", checkpoint.to_string()));
    }
    let (sender, directives) = mpsc::unbounded_channel();
    let lines = LineSplitter::new(directive::PREFIX, MAX_DIRECTIVE_BYTES, sender);
    let cancel = ctx.cancellation_token();
    let (finished, ()) = tokio::join!(
        runner.run(command, &vars, &cancel, Some(lines)),
        save_checkpoints(ctx, directives)
    );
    let finished = finished.map_err(|err| err.to_string())?;
    finished.result().map_err(|why| match &finished.output {
        Some(output) => format!("{why}; output ends with: {}", ending(output, MAX_ERROR_BYTES / 2)),
        None => why,
    })
}

/// Saves each checkpoint the command prints, in order, until its output ends. A checkpoint
/// without a progress keeps the last one given (0 at first). Refused lines are logged.
async fn save_checkpoints(ctx: &PartitionContext, mut directives: mpsc::UnboundedReceiver<String>) {
    let mut last_progress = 0;
    while let Some(line) = directives.recv().await {
        let (state, progress) = match directive::parse(&line) {
            Ok(Directive::Checkpoint { state, progress }) => (state, progress),
            Err(why) => {
                tracing::warn!(job = %ctx.job(), key = %ctx.key(), "{why}");
                continue;
            }
        };
        let progress = progress.unwrap_or(last_progress);
        last_progress = progress;
        let saved = match JsonText::new(state) {
            Ok(state) => ctx.checkpoint(state, progress).await,
            Err(err) => Err(err),
        };
        if let Err(err) = saved {
            tracing::warn!(job = %ctx.job(), key = %ctx.key(), %err, "checkpoint not saved");
        }
    }
}

/// The last `limit` bytes of `text` or fewer, starting at a character.
fn ending(text: &str, limit: usize) -> &str {
    let mut start = text.len().saturating_sub(limit);
    while !text.is_char_boundary(start) {
        start += 1;
    }
    &text[start..]
}
