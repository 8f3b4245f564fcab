//! `baton bench partitions`: the partitioned ETL of the `partitioned_etl` example, (a) over one
//! node against the same conversion in a plain loop, and (b) over several node processes, one
//! of which is killed with SIGKILL mid-run (see `partitions_single` and `partitions_failover`);
//! and (c) a batch of equal CPU-bound partitions on three nodes against the same batch on one
//! node joined by two (see `partitions_scale_up`).
//!
//! The nodes are `baton bench node --role etl` processes; the parent generates the input,
//! starts batches through node 0, and follows them in the store, whose clock times them.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context;
use baton::cluster::{ClusterStore, Partition, PartitionState};
use baton::core::cluster::BatchListParams;
use baton::core::schedule::JobName;
use baton::{LeaseName, LeaseStore};
use partitioned_etl::{Etl, Output, collect, generate, partitions};

use crate::PartitionsBenchArgs;
use crate::lease::{emit, progress};
use crate::nodes::Fleet;
use crate::scenario::Scenario;
use crate::{partitions_failover, partitions_report, partitions_scale_up, partitions_single};

/// How often the parent reads a running batch.
pub(crate) const POLL: Duration = Duration::from_millis(100);
/// How long the nodes may take to start.
pub(crate) const START_LIMIT: Duration = Duration::from_secs(60);
/// How long the nodes may take to shut down and report.
pub(crate) const STOP_LIMIT: Duration = Duration::from_secs(60);
/// How long a batch may run.
const RUN_LIMIT: Duration = Duration::from_secs(600);

/// The lease whose holder leads the cluster of a run's nodes.
pub(crate) fn cluster_lease(run: &str) -> baton::Result<LeaseName> {
    LeaseName::new(format!("bench-{run}-cluster"))
}

/// What both parts of the scenario work with.
pub(crate) struct Bench {
    /// What the scenario was asked for.
    pub(crate) args: PartitionsBenchArgs,
    /// The run's id, naming its nodes, jobs and cluster lease.
    pub(crate) run: String,
    /// Where the input and the outputs go.
    pub(crate) dir: PathBuf,
    /// The store the batches are followed in.
    pub(crate) store: Arc<dyn ClusterStore>,
    /// The store's leases, to tell which node leads.
    pub(crate) leases: Arc<dyn LeaseStore>,
}

impl Bench {
    /// The input CSV.
    pub(crate) fn input(&self) -> PathBuf {
        self.dir.join("input.csv")
    }

    /// The ETL of one part of the run, writing under `dir/part`.
    pub(crate) fn etl(&self, part: &str) -> Etl {
        Etl {
            input: self.input(),
            out: self.dir.join(part),
            partitions: self.args.partitions as usize,
            commit_interval: self.args.commit_interval,
        }
    }

    /// The name of the job of one part of the run.
    pub(crate) fn job(&self, part: &str) -> anyhow::Result<JobName> {
        Ok(JobName::new(format!("etl-{}-{part}", self.run))?)
    }

    /// Starts `count` `etl` nodes for one part of the run, each running up to `slots`
    /// partitions at once, and waits until they are ready; answers them and their ids.
    pub(crate) async fn nodes(
        &self,
        part: &str,
        count: u32,
        slots: u32,
    ) -> anyhow::Result<(Fleet, Vec<String>)> {
        let etl = self.etl(part);
        let extra = [
            "--etl-input".to_string(),
            path_arg(&etl.input)?,
            "--etl-out".into(),
            path_arg(&etl.out)?,
            "--etl-job".into(),
            self.job(part)?.to_string(),
            "--etl-partitions".into(),
            self.args.partitions.to_string(),
            "--etl-commit-interval".into(),
            self.args.commit_interval.to_string(),
            "--etl-slots".into(),
            slots.to_string(),
        ];
        let url = &self.args.backend;
        let mut fleet = Fleet::spawn(url, &self.run, crate::NodeRole::Etl, count, &extra)?;
        let ids = fleet.ready(START_LIMIT).await?;
        Ok((fleet, ids))
    }

    /// Waits for the first batch of `job` after `after`, listening to the nodes meanwhile.
    pub(crate) async fn next_batch(
        &self,
        fleet: &mut Fleet,
        job: &JobName,
        after: Option<i64>,
    ) -> anyhow::Result<i64> {
        let began = Instant::now();
        while began.elapsed() < START_LIMIT {
            let params = BatchListParams { name: Some(job.clone()), ..Default::default() };
            let listed = self.store.batch_list(params).await?.items;
            if let Some(batch) = listed.iter().map(|b| b.id).find(|id| Some(*id) > after) {
                return Ok(batch);
            }
            fleet.listen(POLL).await?;
        }
        anyhow::bail!("no batch of {job} started within {START_LIMIT:?}")
    }

    /// Waits until every partition of `batch` is final, listening to the nodes meanwhile;
    /// answers the partitions, which must all have completed.
    pub(crate) async fn final_partitions(
        &self,
        fleet: &mut Fleet,
        batch: i64,
    ) -> anyhow::Result<Vec<Partition>> {
        let began = Instant::now();
        loop {
            let parts = partitions(&*self.store, batch).await?;
            if parts.iter().all(|p| p.state.is_final()) {
                let failed = parts.iter().find(|p| p.state != PartitionState::Completed);
                if let Some(failed) = failed {
                    anyhow::bail!("partition {} failed: {:?}", failed.key, failed.error);
                }
                return Ok(parts);
            }
            anyhow::ensure!(began.elapsed() < RUN_LIMIT, "batch {batch} ran for {RUN_LIMIT:?}");
            fleet.listen(POLL).await?;
        }
    }
}

/// Collects the output of `etl`'s batch `batch`; answers it with its SHA-256.
pub(crate) async fn hashed(
    store: &dyn ClusterStore,
    etl: &Etl,
    batch: i64,
) -> anyhow::Result<(Output, String)> {
    let output = collect(store, etl, batch).await?;
    let files = output.files.clone();
    let hash = tokio::task::spawn_blocking(move || partitioned_etl::sha256(&files)).await??;
    Ok((output, hash))
}

/// A path as a command-line argument.
fn path_arg(path: &Path) -> anyhow::Result<String> {
    path.to_str().map(str::to_string).with_context(|| format!("{} is not UTF-8", path.display()))
}

/// Runs the partitions scenario against `args.backend`.
pub(crate) async fn run(args: PartitionsBenchArgs) -> anyhow::Result<()> {
    let url = args.backend.clone();
    let Scenario { backend, target, run } = Scenario::open(&url).await?;
    // A temporary directory lives until the end of the run.
    let (dir, _temporary) = match &args.dir {
        Some(dir) => {
            std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
            (dir.clone(), None)
        }
        None => {
            let temporary = tempfile::tempdir()?;
            (temporary.path().to_path_buf(), Some(temporary))
        }
    };
    let bench = Bench { args, run, dir, store: backend.cluster(), leases: backend.leases() };
    emit(&partitions_report::header(&target, &url, &bench));
    let outcome = tokio::select! {
        outcome = parts(&bench) => outcome,
        _ = tokio::signal::ctrl_c() => Err(anyhow::anyhow!("interrupted; the nodes were stopped")),
    };
    emit(&outcome?);
    Ok(())
}

/// Runs the parts asked for; answers their report.
async fn parts(bench: &Bench) -> anyhow::Result<String> {
    let mut report = String::new();
    if !bench.args.scale_up_only {
        progress(&format!("generating {} rows into {}", bench.args.rows, bench.input().display()));
        let (input, rows) = (bench.input(), bench.args.rows);
        let bytes = tokio::task::spawn_blocking(move || generate(&input, rows)).await??;
        let (single, failover) = both(bench).await?;
        report.push_str(&partitions_report::render(bench, bytes, &single, failover.as_ref()));
    }
    if !bench.args.skip_scale_up {
        let scale_up = partitions_scale_up::run(bench).await?;
        report.push('\n');
        report.push_str(&partitions_scale_up::render(&scale_up));
    }
    Ok(report)
}

async fn both(
    bench: &Bench,
) -> anyhow::Result<(partitions_single::Single, Option<partitions_failover::Failover>)> {
    let single = partitions_single::run(bench).await?;
    let failover = if bench.args.skip_failover {
        None
    } else {
        Some(partitions_failover::run(bench, &single.hash).await?)
    };
    Ok((single, failover))
}
