//! A node of a run: a cluster node with the ETL job, in this process or in a node process of
//! its own that runs until its standard input closes.

use baton::cluster::{Cluster, ClusterConfig, NodeId};
use baton::core::schedule::JobName;
use baton::{Backend, ElectorConfig, HolderId};
use partitioned_etl::Etl;
use tokio::io::{AsyncBufReadExt, BufReader};

use crate::NodeArgs;

/// The partitioned job's name.
pub(crate) fn job() -> JobName {
    JobName::new("etl").expect("a valid job name")
}

/// Node `index`'s id, which is also its holder id in the leader election.
pub(crate) fn node_id(index: u32) -> String {
    format!("etl-node-{index}")
}

/// Starts node `index` with the ETL job, at the default timing.
pub(crate) async fn start(backend: &Backend, index: u32, etl: &Etl) -> anyhow::Result<Cluster> {
    let id = node_id(index);
    let mut config = ClusterConfig::new(NodeId::new(&id)?, "localhost");
    config.elector = ElectorConfig::new(HolderId::new(&id)?);
    let cluster = Cluster::builder(backend.leases(), backend.cluster())
        .config(config)
        .partitioned(etl.job(job()))
        .start()
        .await?;
    Ok(cluster)
}

/// Runs a node process: says `ready` on stdout once it is registered, and leaves the
/// cluster gracefully when its standard input closes.
pub(crate) async fn serve(args: NodeArgs) -> anyhow::Result<()> {
    let backend = baton::connect(&args.backend).await?;
    let cluster = start(&backend, args.index, &args.work.etl(&args.dir)).await?;
    println!("ready");
    let mut stdin = BufReader::new(tokio::io::stdin()).lines();
    while stdin.next_line().await?.is_some() {}
    cluster.shutdown().await;
    Ok(())
}
