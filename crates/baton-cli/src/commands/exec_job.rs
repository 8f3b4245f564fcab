//! `baton exec --job`: the run recorded as an execution of a job, once per fire.

use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use baton::core::job::{CompleteParams, HeartbeatParams, TriggerOutcome, TriggerParams};
use baton::core::schedule::{JobName, JobPolicy};
use baton::core::{
    Execution, ExecutionStatus, FencingToken, FireKey, JobDefinition, JobStore, Schedule, Trigger,
};
use baton::{HolderId, StoreTime};
use tokio_util::sync::CancellationToken;

use crate::cli::ExecArgs;

/// The fire a run stands for, resolved before the lease is taken.
pub struct Fire {
    store: Arc<dyn JobStore>,
    job: JobName,
    key: FireKey,
    scheduled_at: Option<StoreTime>,
}

/// What recording the run found.
pub enum Start {
    /// The run is recorded and claimed under this execution.
    Run(Execution),
    /// Nothing to run: the fire succeeded already, or another attempt of it is live.
    Done { message: String, succeeded: bool },
}

impl Fire {
    /// Registers the job when `--schedule` is given, checks it exists, and resolves the fire.
    pub async fn resolve(
        store: Arc<dyn JobStore>,
        job: JobName,
        args: &ExecArgs,
    ) -> anyhow::Result<Self> {
        if let Some(expression) = &args.schedule {
            let schedule = Schedule::cron(expression, &args.time_zone)?;
            let definition =
                JobDefinition { name: job.clone(), schedule, policy: JobPolicy::default() };
            store.job_upsert(definition).await?;
        }
        let Some(registered) = store.job_get(&job).await? else {
            anyhow::bail!(
                "job {job} is not registered: pass --schedule CRON (such as --schedule \"0 3 * * *\") \
                 to register it, or start an agent whose file defines it"
            );
        };
        let (key, scheduled_at) = match (&args.idempotency_key, &args.fire_time) {
            (Some(key), _) => (FireKey::idempotency(key)?, None),
            (None, Some(time)) => {
                let at = StoreTime::parse(time)?;
                (FireKey::at(at), Some(at))
            }
            (None, None) => {
                let now = store.now().await?;
                let at = registered
                    .definition
                    .schedule
                    .prev_before(StoreTime::from_millis(now.as_millis() + 1))
                    .with_context(|| format!("job {job} has no fire at or before now: pass --fire-time or --idempotency-key"))?;
                (FireKey::at(at), Some(at))
            }
        };
        Ok(Fire { store, job, key, scheduled_at })
    }

    /// Records the run under the fire's identity and claims it for `node`.
    pub async fn start(&self, node: &HolderId) -> anyhow::Result<Start> {
        let params = TriggerParams {
            job: self.job.clone(),
            fire_key: Some(self.key.clone()),
            scheduled_at: self.scheduled_at,
            trigger: Trigger::External,
            claim_for: Some(node.clone()),
        };
        Ok(match self.store.trigger(params).await? {
            TriggerOutcome::Recorded(execution) => Start::Run(execution),
            TriggerOutcome::Existing(execution) => {
                let succeeded = execution.status == ExecutionStatus::Succeeded;
                let message = format!(
                    "job {} fire {} is already {} (execution {}, attempt {}); not running it again",
                    self.job, self.key, execution.status, execution.id, execution.attempt
                );
                Start::Done { message, succeeded }
            }
            _ => anyhow::bail!("unexpected trigger outcome"),
        })
    }

    /// The variables a recorded run passes to its command.
    pub fn env(&self, execution: &Execution) -> Vec<(&'static str, String)> {
        vec![
            ("BATON_JOB", self.job.to_string()),
            ("BATON_FIRE_TIME", execution.scheduled_at.to_string()),
            ("BATON_EXECUTION_ID", execution.id.to_string()),
            ("BATON_ATTEMPT", execution.attempt.to_string()),
        ]
    }

    /// Heartbeats the execution every `interval` until `stop` fires.
    pub fn heartbeat(
        &self,
        node: &HolderId,
        execution: &Execution,
        token: FencingToken,
        interval: Duration,
        stop: CancellationToken,
    ) {
        let (store, node, id) = (self.store.clone(), node.clone(), execution.id);
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    () = stop.cancelled() => return,
                    () = tokio::time::sleep(interval) => {}
                }
                let params = HeartbeatParams { node: node.clone(), executions: vec![(id, token)] };
                match store.heartbeat(params).await {
                    Ok(outcome) if !outcome.lost.is_empty() => {
                        eprintln!("baton: execution {id} is no longer recorded as running here");
                        return;
                    }
                    Ok(_) => {}
                    Err(err) => tracing::warn!(%err, "heartbeat of execution {id} failed"),
                }
            }
        });
    }

    /// Records how the run ended.
    pub async fn complete(
        &self,
        execution: &Execution,
        token: FencingToken,
        status: ExecutionStatus,
        detail: Option<String>,
    ) {
        let params = CompleteParams { id: execution.id, token, status, detail, output: None };
        if let Err(err) = self.store.complete(params).await {
            eprintln!("baton: recording the outcome of execution {} failed: {err}", execution.id);
        }
    }
}
