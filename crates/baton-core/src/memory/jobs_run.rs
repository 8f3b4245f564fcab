//! Running executions: claim, heartbeat, complete, cancel and rescue.

use std::collections::HashMap;

use super::jobs_fires::Written;
use super::jobs_state::{Records, finish, start};
use crate::error::{Error, Result};
use crate::job::rules::{self, ClaimDecision, JobState};
use crate::job::{
    ClaimParams, Claimed, CompleteParams, Completed, ExecutionStatus, HeartbeatOutcome,
    HeartbeatParams, RescueParams, Rescued,
};
use crate::page::MAX_PAGE_SIZE;
use crate::schedule::{JobName, OverlapPolicy};
use crate::time::StoreTime;

impl Records {
    /// Claims due executions at `now`, oldest due first, until `limit` run.
    pub(super) fn claim(&mut self, params: ClaimParams, now: StoreTime) -> Result<Claimed> {
        if params.limit == 0 || params.limit > MAX_PAGE_SIZE {
            return Err(Error::invalid_input(format!(
                "invalid claim limit {}: expected 1 to {MAX_PAGE_SIZE}",
                params.limit
            )));
        }
        let mut due: Vec<(StoreTime, i64)> = self
            .executions
            .values()
            .filter(|e| {
                e.status == ExecutionStatus::Scheduled
                    && e.due_at <= now.saturating_add(params.ahead)
            })
            .filter(|e| params.jobs.is_empty() || params.jobs.contains(&e.job))
            .map(|e| (e.due_at, e.id))
            .collect();
        due.sort_unstable();
        let mut claimed = Claimed::at(now);
        // Each job's running and first waiting execution, found once per claim and again
        // only after this claim started or settled one of its executions.
        let mut states: HashMap<JobName, (Option<i64>, Option<i64>)> = HashMap::new();
        for (_, id) in due {
            if claimed.running.len() >= params.limit as usize {
                break;
            }
            let decision = {
                let execution = &self.executions[&id];
                let (running, first_waiting) = *states
                    .entry(execution.job.clone())
                    .or_insert_with(|| self.job_state(&execution.job, now));
                let state = JobState {
                    job: self.job(&execution.job),
                    running: running.and_then(|id| self.executions.get(&id)),
                    first_waiting,
                };
                rules::claim_decision(execution, state, now)
            };
            if matches!(decision, ClaimDecision::Run | ClaimDecision::Settle(..)) {
                states.remove(&self.executions[&id].job);
            }
            match decision {
                ClaimDecision::Run => {
                    let token = self.next_token()?;
                    let execution = self.executions.get_mut(&id).expect("due execution");
                    start(execution, params.node.clone(), token, now);
                    claimed.running.push(execution.clone());
                }
                ClaimDecision::Settle(status, reason) => {
                    let execution = self.executions.get_mut(&id).expect("due execution");
                    finish(execution, status, Some(reason), now);
                    claimed.settled.push(execution.clone());
                }
                ClaimDecision::WaitAndCancel(running) => {
                    if let Some(running) = self.executions.get_mut(&running) {
                        running.cancel_requested = true;
                    }
                }
                ClaimDecision::Wait => {}
            }
        }
        claimed.next_due = self.next_due(&params.jobs);
        Ok(claimed)
    }

    /// What a claim at `now` knows about `job` besides its registration: the id of its
    /// running execution with the lowest id, and of its due scheduled execution with the
    /// lowest id.
    fn job_state(&self, job: &JobName, now: StoreTime) -> (Option<i64>, Option<i64>) {
        let mut running = None;
        let mut first_waiting = None;
        for execution in self.job_executions(job) {
            if running.is_none() && execution.status == ExecutionStatus::Running {
                running = Some(execution.id);
            }
            if first_waiting.is_none()
                && execution.status == ExecutionStatus::Scheduled
                && execution.due_at <= now
            {
                first_waiting = Some(execution.id);
            }
        }
        (running, first_waiting)
    }

    /// Stamps the heartbeat of every execution still running under its token on this node.
    pub(super) fn heartbeat(
        &mut self,
        params: HeartbeatParams,
        now: StoreTime,
    ) -> HeartbeatOutcome {
        let mut outcome = HeartbeatOutcome::default();
        for (id, token) in params.executions {
            match self.executions.get_mut(&id) {
                Some(execution)
                    if execution.status == ExecutionStatus::Running
                        && execution.token == Some(token)
                        && execution.node.as_ref() == Some(&params.node) =>
                {
                    execution.heartbeat_at = Some(now);
                    if execution.cancel_requested {
                        outcome.cancel.push(id);
                    }
                }
                _ => outcome.lost.push(id),
            }
        }
        outcome
    }

    /// Finishes a running execution under its token and records the retry its policy calls
    /// for.
    pub(super) fn complete(
        &mut self,
        params: CompleteParams,
        now: StoreTime,
    ) -> Result<Written<Completed>> {
        if !matches!(
            params.status,
            ExecutionStatus::Succeeded
                | ExecutionStatus::Failed
                | ExecutionStatus::TimedOut
                | ExecutionStatus::Cancelled
        ) {
            return Err(Error::invalid_input(format!(
                "invalid completion status {}: expected succeeded, failed, timed_out or cancelled",
                params.status
            )));
        }
        let execution = self
            .executions
            .get_mut(&params.id)
            .filter(|e| e.status == ExecutionStatus::Running && e.token == Some(params.token))
            .ok_or_else(|| {
                Error::lease_lost(format!(
                    "execution {} is no longer running under token {}",
                    params.id, params.token
                ))
            })?;
        finish(execution, params.status, params.detail, now);
        let execution = execution.clone();
        if let Some(output) = params.output {
            self.outputs.insert(params.id, output);
        }
        let retry = self.record_retry(params.id, now);
        let scheduled = retry.is_some() || self.waits_on_overlap(&execution.job, now);
        Ok(Written { outcome: Completed { execution, retry }, scheduled })
    }

    /// Asks a running execution to stop, or cancels a scheduled one outright.
    pub(super) fn request_cancel(&mut self, id: i64, now: StoreTime) -> bool {
        let Some(execution) = self.executions.get_mut(&id) else { return false };
        match execution.status {
            ExecutionStatus::Running => {
                execution.cancel_requested = true;
                true
            }
            ExecutionStatus::Scheduled => {
                let detail = Some("cancelled before it started".to_owned());
                finish(execution, ExecutionStatus::Cancelled, detail, now);
                true
            }
            _ => false,
        }
    }

    /// Abandons running executions whose last heartbeat is more than `stale_after` before
    /// `now`, oldest heartbeat first, and records their retries.
    pub(super) fn rescue(&mut self, params: RescueParams, now: StoreTime) -> Written<Rescued> {
        let mut stale: Vec<(StoreTime, i64)> = self
            .executions
            .values()
            .filter(|e| e.status == ExecutionStatus::Running)
            .filter_map(|e| Some((e.heartbeat_at.or(e.started_at)?, e.id)))
            .filter(|(beat, _)| beat.saturating_add(params.stale_after) < now)
            .collect();
        stale.sort_unstable();
        stale.truncate(params.limit as usize);
        let mut rescued = Rescued::default();
        let mut freed = false;
        for (beat, id) in stale {
            let execution = self.executions.get_mut(&id).expect("stale execution");
            let node = execution.node.as_ref().map_or("unknown", |node| node.as_str());
            let detail = format!("worker {node} stopped heartbeating (last at {beat})");
            finish(execution, ExecutionStatus::Abandoned, Some(detail), now);
            let execution = execution.clone();
            freed |= self.waits_on_overlap(&execution.job, now);
            rescued.abandoned.push(execution);
            rescued.retries.extend(self.record_retry(id, now));
        }
        rescued.oldest_heartbeat = self
            .executions
            .values()
            .filter(|e| e.status == ExecutionStatus::Running)
            .filter_map(|e| e.heartbeat_at.or(e.started_at))
            .min();
        let scheduled = freed || !rescued.retries.is_empty();
        Written { outcome: rescued, scheduled }
    }

    /// Whether `job`, whose overlap is not `allow`, has an execution due at `now` still
    /// scheduled: one that may have waited on the execution that just ended.
    fn waits_on_overlap(&self, job: &JobName, now: StoreTime) -> bool {
        let allows =
            self.job(job).is_none_or(|job| job.definition.policy.overlap == OverlapPolicy::Allow);
        !allows
            && self
                .job_executions(job)
                .any(|e| e.status == ExecutionStatus::Scheduled && e.due_at <= now)
    }
}
