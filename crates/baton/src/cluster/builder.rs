//! Collecting a node's configuration and jobs, and starting it.

use std::collections::BTreeMap;
use std::sync::Arc;

use baton_core::cluster::ClusterStore;
use baton_core::cluster::Strategy;
use baton_core::layer::Layered;
use baton_core::{Error, LeaseStore, Result};
use tokio_util::sync::CancellationToken;

use super::leader::Leader;
use super::stage::Stage;
use super::worker::{Jobs, Worker};
use super::{Cluster, ClusterConfig, PartitionedJob};
use crate::Elector;
use crate::claim::TimeLimit;

/// Collects the configuration and partitioned jobs of a [`Cluster`] node.
#[must_use = "a cluster builder does nothing until `start`"]
pub struct ClusterBuilder {
    leases: Arc<dyn LeaseStore>,
    store: Arc<dyn ClusterStore>,
    config: ClusterConfig,
    jobs: Vec<PartitionedJob>,
}

impl std::fmt::Debug for ClusterBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClusterBuilder")
            .field("config", &self.config)
            .field("jobs", &self.jobs)
            .finish_non_exhaustive()
    }
}

impl ClusterBuilder {
    pub(super) fn new(leases: Arc<dyn LeaseStore>, store: Arc<dyn ClusterStore>) -> Self {
        ClusterBuilder { leases, store, config: ClusterConfig::default(), jobs: Vec::new() }
    }

    /// Replaces the default configuration.
    pub fn config(mut self, config: ClusterConfig) -> Self {
        self.config = config;
        self
    }

    /// Adds a partitioned job this node can start and run partitions of.
    pub fn partitioned(mut self, job: PartitionedJob) -> Self {
        self.jobs.push(job);
        self
    }

    /// Validates the configuration, registers the node as a new incarnation, and starts
    /// heartbeating, claiming partitions and campaigning for the cluster leadership.
    pub async fn start(self) -> Result<Cluster> {
        self.config.validate()?;
        let thresholds = self.config.thresholds()?;
        let jobs = Arc::new(index(self.jobs)?);
        let halt = CancellationToken::new();
        // No call of the node may wait longer than the time it may act after a heartbeat.
        let limit = TimeLimit(self.config.act_for());
        let store: Arc<dyn ClusterStore> = Arc::new(Layered::new(self.store, limit));
        let worker =
            Worker::register(store.clone(), self.config.clone(), jobs.clone(), halt.clone());
        let worker = Arc::new(worker.await?);
        let elector = Elector::new(self.leases, self.config.elector.clone())?;
        let campaign = elector.campaign(self.config.lease.clone());
        let leadership = campaign.watch();
        let step_downs = campaign.step_downs();
        let (claiming, beating, leading) =
            (Stage::new(&halt), Stage::new(&halt), Stage::new(&halt));
        claiming.spawn(|stop| worker.clone().claim_loop(stop));
        beating.spawn(|stop| worker.clone().heartbeat_loop(stop));
        beating.spawn(|stop| worker.clone().enforce_claims(stop));
        let leader = Leader { store, jobs: jobs.clone(), thresholds, callbacks: leading.tracker() };
        leading.spawn(|stop| leader.lead(campaign, stop));
        Ok(Cluster {
            worker,
            jobs,
            elector,
            leadership,
            step_downs,
            claiming,
            beating,
            leading,
            _halt: halt.drop_guard(),
        })
    }
}

/// The jobs by name; a name given twice, or stealing in a free-for-all job, is refused.
fn index(jobs: Vec<PartitionedJob>) -> Result<Jobs> {
    let mut indexed = BTreeMap::new();
    for job in jobs {
        if job.stealing && job.strategy == Strategy::FreeForAll {
            return Err(Error::invalid_input(format!(
                "invalid work stealing for partitioned job {}: expected an assigning strategy \
                 (any node claims any partition of a free-for-all batch)",
                job.name
            )));
        }
        if let Some(twice) = indexed.insert(job.name.clone(), job) {
            return Err(Error::invalid_input(format!(
                "partitioned job {} registered twice: expected each job once per node",
                twice.name
            )));
        }
    }
    Ok(indexed)
}
