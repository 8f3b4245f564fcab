//! The `digest` node role: a cluster node with the digest job of the scale-up part of
//! `baton bench partitions` (see `digest`), at the default cluster timing. Node 0 starts a
//! batch at every `start`; every node runs the partitions it claims, one at a time, and leaves
//! the cluster gracefully at `stop`.

use std::io::Write;

use anyhow::Context;
use baton::ElectorConfig;
use baton::cluster::{Cluster, ClusterConfig, NodeId};
use baton::core::schedule::JobName;

use crate::digest::Digest;
use crate::node::{Node, emit};
use crate::partitions::cluster_lease;
use crate::wire::{Command, Message};

/// Runs the `digest` role.
pub(crate) async fn run(mut node: Node) -> anyhow::Result<()> {
    let args = node.args.digest.clone();
    let digest = Digest { partitions: args.digest_partitions, steps: args.digest_steps };
    let job = JobName::new(args.digest_job.context("the digest role needs --digest-job")?)?;
    let mut config = ClusterConfig::new(NodeId::new(node.holder.as_str())?, "bench");
    config.elector = ElectorConfig::new(node.holder.clone());
    config.lease = cluster_lease(&node.args.run)?;
    config.max_concurrent = 1;
    let store = baton::connect(&node.args.backend).await?.cluster();
    let cluster = Cluster::builder(node.leases.clone(), store)
        .config(config)
        .partitioned(digest.job(job.clone()))
        .start()
        .await?;
    emit(&Message::Ready(node.holder.to_string()));
    while node.next().await == Command::Start {
        if node.args.index == 0 {
            cluster.run(&job).await?;
        }
    }
    cluster.shutdown().await;
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    node.report_window(&mut out)?;
    writeln!(out, "{}", Message::End.line())?;
    out.flush()?;
    Ok(())
}
