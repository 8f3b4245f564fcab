//! A partitioned batch job: two replicas of a service share one store; a batch of eight
//! partitions, each summing a range of numbers, is spread over both, and the node that
//! finishes the batch adds up the partitions' results.
//!
//! Run with `cargo run -p baton --example partitioned_job` (an embedded SQLite file in a
//! temporary directory), or on PostgreSQL with
//! `cargo run -p baton --features postgres --example partitioned_job -- postgres://USER@HOST/DB`.

use baton::cluster::{
    BatchJob, Cluster, ClusterConfig, JsonText, NodeId, Partition, PartitionContext, PartitionKey,
    PartitionSpec, PartitionedJob, Strategy,
};

/// Numbers each partition sums.
const SLICE: u64 = 1_000;
/// Partitions of a batch.
const PARTITIONS: u64 = 8;

/// Where the node that finishes a batch sends its partitions.
type Finished = tokio::sync::mpsc::UnboundedSender<(i64, Vec<Partition>)>;

/// The job: partition `i` sums the numbers `i * SLICE .. (i + 1) * SLICE`.
fn sum_job(done: Finished) -> anyhow::Result<PartitionedJob> {
    let job = PartitionedJob::new(
        "sum".parse()?,
        |_live_nodes: usize| async move {
            (0..PARTITIONS)
                .map(|i| {
                    let key = PartitionKey::new(format!("slice-{i}"))?;
                    Ok(PartitionSpec::new(key, JsonText::new(i.to_string())?))
                })
                .collect::<baton::Result<Vec<_>>>()
        },
        |ctx: PartitionContext| async move {
            let slice: u64 = ctx.params().as_str().parse().map_err(|_| {
                baton::Error::invalid_input(format!("slice {} is not a number", ctx.params()))
            })?;
            // A real partition passes ctx.token() to every write and checkpoints its progress.
            let sum: u64 = (slice * SLICE..(slice + 1) * SLICE).sum();
            Ok::<_, baton::Error>(sum.to_string())
        },
    )
    .strategy(Strategy::RoundRobin)
    .on_success(move |batch: BatchJob, partitions: Vec<Partition>| {
        let done = done.clone();
        async move {
            let _ = done.send((batch.id, partitions));
        }
    });
    Ok(job)
}

/// Runs two nodes on the store at `url`, runs one batch and answers the batch's id, its total
/// and, for each node, the partitions it ran.
pub async fn run(url: &str) -> anyhow::Result<(i64, u64, Vec<(String, usize)>)> {
    let backend = baton::connect(url).await?;
    backend.migrate().await?;
    let (done, mut finished) = tokio::sync::mpsc::unbounded_channel();
    let mut nodes = Vec::new();
    for name in ["replica-a", "replica-b"] {
        let node = NodeId::new(format!("{name}-{}", std::process::id()))?;
        let cluster = Cluster::builder(backend.leases(), backend.cluster())
            .config(ClusterConfig::new(node, "localhost"))
            .partitioned(sum_job(done.clone())?)
            .start()
            .await?;
        nodes.push(cluster);
    }
    let batch = nodes[0].run(&"sum".parse()?).await?;
    let (finished_batch, partitions) = finished.recv().await.expect("a node finishes the batch");
    anyhow::ensure!(finished_batch == batch, "batch {finished_batch} finished, {batch} started");
    let results = partitions.iter().filter_map(|partition| partition.result.as_ref());
    let total = results.filter_map(|result| result.as_str().parse::<u64>().ok()).sum();
    let mut ran = Vec::new();
    for node in &nodes {
        let count = partitions.iter().filter(|p| p.node.as_ref() == Some(node.node())).count();
        ran.push((node.node().to_string(), count));
    }
    for node in &nodes {
        node.shutdown().await;
    }
    Ok((batch, total, ran))
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let url = std::env::args()
        .nth(1)
        .unwrap_or_else(|| format!("sqlite://{}", dir.path().join("baton.db").display()));
    let (batch, total, ran) = run(&url).await?;
    for (node, partitions) in ran {
        println!("{node} ran {partitions} partitions");
    }
    println!("batch {batch}: the sum of 0..{} is {total}", SLICE * PARTITIONS);
    Ok(())
}
