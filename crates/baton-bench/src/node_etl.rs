//! The `etl` node role: a cluster node with the partitioned ETL job of the `partitioned_etl`
//! example, at the default cluster timing. Node 0 starts a batch at every `start`; every node
//! runs the partitions it claims, and leaves the cluster gracefully at `stop`.

use std::io::Write;

use anyhow::Context;
use baton::ElectorConfig;
use baton::cluster::{Cluster, ClusterConfig, NodeId};
use baton::core::schedule::JobName;
use partitioned_etl::Etl;

use crate::node::{Node, emit};
use crate::partitions::cluster_lease;
use crate::wire::{Command, Message};

/// Runs the `etl` role.
pub(crate) async fn run(mut node: Node) -> anyhow::Result<()> {
    let args = node.args.etl.clone();
    let etl = Etl {
        input: args.etl_input.context("the etl role needs --etl-input")?,
        out: args.etl_out.context("the etl role needs --etl-out")?,
        partitions: args.etl_partitions as usize,
        commit_interval: args.etl_commit_interval,
    };
    let job = JobName::new(args.etl_job.context("the etl role needs --etl-job")?)?;
    let mut config = ClusterConfig::new(NodeId::new(node.holder.as_str())?, "bench");
    config.elector = ElectorConfig::new(node.holder.clone());
    config.lease = cluster_lease(&node.args.run)?;
    config.max_concurrent = args.etl_slots as usize;
    let store = baton::connect(&node.args.backend).await?.cluster();
    let cluster = Cluster::builder(node.leases.clone(), store)
        .config(config)
        .partitioned(etl.job(job.clone()))
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
