//! The cluster node roles of `baton bench partitions`, at the default cluster timing: `etl`
//! runs the partitioned ETL of the `partitioned_etl` example, `digest` the digest job of the
//! scale-up part (see `digest`), one partition at a time. Node 0 starts a batch at every
//! `start`; every node runs the partitions it claims, and leaves the cluster gracefully at
//! `stop`.

use std::io::Write;

use anyhow::Context;
use baton::ElectorConfig;
use baton::cluster::{Cluster, ClusterConfig, NodeId, PartitionedJob};
use baton::core::schedule::JobName;
use partitioned_etl::Etl;

use crate::digest::Digest;
use crate::node::{Node, emit};
use crate::partitions::cluster_lease;
use crate::wire::{Command, Message};

/// Runs the `etl` role.
pub(crate) async fn etl(node: Node) -> anyhow::Result<()> {
    let args = node.args.etl.clone();
    let etl = Etl {
        input: args.etl_input.context("the etl role needs --etl-input")?,
        out: args.etl_out.context("the etl role needs --etl-out")?,
        partitions: args.etl_partitions as usize,
        commit_interval: args.etl_commit_interval,
    };
    let name = JobName::new(args.etl_job.context("the etl role needs --etl-job")?)?;
    serve(node, etl.job(name.clone()), name, args.etl_slots as usize).await
}

/// Runs the `digest` role.
pub(crate) async fn digest(node: Node) -> anyhow::Result<()> {
    let args = node.args.digest.clone();
    let digest = Digest { partitions: args.digest_partitions, steps: args.digest_steps };
    let name = JobName::new(args.digest_job.context("the digest role needs --digest-job")?)?;
    serve(node, digest.job(name.clone()), name, 1).await
}

/// Runs a cluster node with `job` (named `name`), up to `slots` partitions at once, until
/// `stop`; then reports the node's tallies.
async fn serve(
    mut node: Node,
    job: PartitionedJob,
    name: JobName,
    slots: usize,
) -> anyhow::Result<()> {
    let mut config = ClusterConfig::new(NodeId::new(node.holder.as_str())?, "bench");
    config.elector = ElectorConfig::new(node.holder.clone());
    config.lease = cluster_lease(&node.args.run)?;
    config.max_concurrent = slots;
    let store = baton::connect(&node.args.backend).await?.cluster();
    let cluster = Cluster::builder(node.leases.clone(), store)
        .config(config)
        .partitioned(job)
        .start()
        .await?;
    emit(&Message::Ready(node.holder.to_string()));
    while node.next().await == Command::Start {
        if node.args.index == 0 {
            cluster.run(&name).await?;
        }
    }
    cluster.shutdown().await;
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    node.report_window(&mut out)?;
    writeln!(out, "{}", Message::End.line())?;
    out.flush()?;
    Ok(())
}
