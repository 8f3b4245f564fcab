//! The running agent: connects, registers in the cluster, runs the jobs, logs leadership
//! changes, and shuts down gracefully on SIGTERM or SIGINT.

use std::sync::Arc;

use anyhow::Context;
use baton::Leadership;
use baton::cluster::Cluster;
use baton::scheduler::Scheduler;
use tokio::signal::unix::{Signal, SignalKind, signal};
use tokio::sync::watch;
use tokio::task::JoinHandle;

use super::batch_starts::batch_starter;
use super::batches::partitioned_job;
use super::config::AgentConfig;
use super::http::{AgentNode, Http, NodeRequest};
use super::jobs::command_job;
use super::runner::Runner;

/// How the agent ended.
pub enum Ending {
    /// It shut down gracefully after a signal.
    Graceful,
    /// A second signal cut the shutdown short: running commands were killed.
    Forced,
}

/// Runs the agent on `host` until SIGTERM or SIGINT, then shuts it down: the scheduler
/// leadership is released at once and the cluster leadership given up, running commands have
/// the grace period to finish and are then stopped (SIGTERM, then SIGKILL), and the node
/// leaves the cluster. A second signal ends the agent at once.
pub async fn run(config: AgentConfig, host: &str) -> anyhow::Result<Ending> {
    let mut signals = Signals::new()?;
    if let Err(err) = baton_server::metrics::install() {
        tracing::warn!(%err, "metrics are not recorded");
    }
    let listener = Http::bind(&config.http).await?;
    let leases = config.lease_backend.as_deref().unwrap_or(&config.backend);
    let backend = baton::connect_split(leases, &config.backend).await?;
    if backend.is_embedded() {
        backend.migrate().await.context("preparing the SQLite file")?;
    }
    let (node, mut requests) = AgentNode::new(config.node.to_string());
    let http = Http::start(listener, &config.http, backend.clone(), node.clone())?;
    let runner = Runner {
        output_limit: config.output_limit,
        kill_grace: config.timing.kill_grace(),
        backend: config.pass_backend.then(|| config.backend.clone()),
    };
    let mut cluster =
        Cluster::builder(backend.leases(), backend.cluster()).config(config.cluster(host));
    for batch in &config.batches {
        cluster = cluster.partitioned(partitioned_job(batch, runner.clone()));
    }
    let cluster = match cluster.start().await.context("joining the cluster") {
        Ok(cluster) => Arc::new(cluster),
        Err(err) => {
            http.stop().await;
            return Err(err);
        }
    };
    let scheduler = match start_scheduler(&config, &backend, runner, &cluster).await {
        Ok(scheduler) => scheduler,
        Err(err) => {
            cluster.shutdown().await;
            http.stop().await;
            return Err(err);
        }
    };
    node.set_ready(true);
    tracing::info!(node = %config.node, jobs = config.jobs.len(), batches = config.batches.len(),
        stores = %config.stores(), http = %http.address, "agent started");
    let watchers = [
        log_leadership("scheduler", scheduler.leadership()),
        log_leadership("cluster", cluster.leadership()),
    ];
    let signal = loop {
        tokio::select! {
            signal = signals.next() => break signal,
            Some(request) = requests.recv() => match request {
                NodeRequest::StepDown { lease, reply } => {
                    let held = if lease == config.scheduler().lease {
                        scheduler.step_down().await
                    } else if lease == config.cluster(host).lease {
                        cluster.step_down().await
                    } else {
                        false
                    };
                    let _ = reply.send(held);
                }
                NodeRequest::StartBatch { job, reply } => {
                    if config.batches.iter().any(|batch| batch.name == job) {
                        let cluster = cluster.clone();
                        tokio::spawn(async move { reply.send(cluster.run(&job).await.map(Some)) });
                    } else {
                        let _ = reply.send(Ok(None));
                    }
                }
            },
        }
    };
    node.set_ready(false);
    tracing::info!(signal, grace_period = ?config.grace_period, "stopping: waiting for running commands");
    let shutdown = async {
        let cluster_shutdown = async {
            cluster.step_down().await;
            cluster.shutdown().await;
        };
        tokio::join!(scheduler.shutdown(), cluster_shutdown);
    };
    let ending = tokio::select! {
        () = shutdown => Ending::Graceful,
        signal = signals.next() => {
            tracing::warn!(signal, "second signal: stopping at once, killing running commands");
            Ending::Forced
        }
    };
    watchers.iter().for_each(JoinHandle::abort);
    http.stop().await;
    if let Ending::Graceful = ending {
        tracing::info!(node = %config.node, "agent stopped");
    }
    Ok(ending)
}

async fn start_scheduler(
    config: &AgentConfig,
    backend: &baton::Backend,
    runner: Runner,
    cluster: &Arc<Cluster>,
) -> anyhow::Result<Scheduler> {
    let mut scheduler =
        Scheduler::builder(backend.leases(), backend.jobs()).config(config.scheduler());
    for job in &config.jobs {
        scheduler = scheduler.job(command_job(job, runner.clone())?);
    }
    for batch in &config.batches {
        if let Some(schedule) = &batch.schedule {
            scheduler = scheduler.job(batch_starter(&batch.name, schedule, cluster.clone())?);
        }
    }
    scheduler.start().await.context("starting the scheduler")
}

/// Logs each change of this node's leadership of `role`.
fn log_leadership(
    role: &'static str,
    mut leadership: watch::Receiver<Leadership>,
) -> JoinHandle<()> {
    tokio::spawn(async move {
        let mut leading = None;
        while leadership.changed().await.is_ok() {
            let token = leadership.borrow_and_update().token();
            if token == leading {
                continue;
            }
            match token {
                Some(token) => tracing::info!(role, %token, "this node now leads the {role}"),
                None => tracing::info!(role, "this node no longer leads the {role}"),
            }
            leading = token;
        }
    })
}

/// SIGTERM and SIGINT, listened to from the start so that none is missed.
struct Signals {
    terminate: Signal,
    interrupt: Signal,
}

impl Signals {
    fn new() -> std::io::Result<Self> {
        Ok(Signals {
            terminate: signal(SignalKind::terminate())?,
            interrupt: signal(SignalKind::interrupt())?,
        })
    }

    /// The name of the next signal received.
    async fn next(&mut self) -> &'static str {
        tokio::select! {
            _ = self.terminate.recv() => "SIGTERM",
            _ = self.interrupt.recv() => "SIGINT",
        }
    }
}
