//! Reading and pruning the record: listings with keyset pages, the last fire of every job,
//! the next due instant, and retention.

use super::jobs_state::Records;
use crate::error::Result;
use crate::job::{
    Execution, ExecutionListParams, ExecutionStatus, Job, JobListParams, PruneParams, Trigger,
};
use crate::page::{Cursor, Page, check_page_size};
use crate::schedule::JobName;
use crate::time::StoreTime;

impl Records {
    /// One page of jobs by id.
    pub(super) fn job_list(&self, params: JobListParams) -> Result<Page<Job>> {
        let limit = check_page_size(params.limit)?;
        let after = params.after.map_or(i64::MIN, Cursor::last_id);
        let since = params.updated_since.unwrap_or(StoreTime::from_millis(i64::MIN));
        let matching = self.jobs().iter().filter(|job| job.id > after && job.updated_at >= since);
        Ok(page(matching, limit, |job| job.id))
    }

    /// One page of executions by id, filtered.
    pub(super) fn execution_list(&self, params: ExecutionListParams) -> Result<Page<Execution>> {
        let limit = check_page_size(params.limit)?;
        let after = params.after.map_or(i64::MIN, Cursor::last_id);
        let matching = self
            .executions
            .range(after.saturating_add(1)..)
            .map(|(_, execution)| execution)
            .filter(|e| params.job.as_ref().is_none_or(|job| &e.job == job))
            .filter(|e| params.status.is_none_or(|status| e.status == status))
            .filter(|e| params.since.is_none_or(|since| e.scheduled_at >= since))
            .filter(|e| params.until.is_none_or(|until| e.scheduled_at < until));
        Ok(page(matching, limit, |e| e.id))
    }

    /// The last instant the scheduler accounted for, per job that has schedule records.
    pub(super) fn job_last_fires(&self) -> Vec<(JobName, StoreTime)> {
        self.jobs()
            .iter()
            .filter_map(|job| {
                let last = self.job_executions(job.name()).filter_map(fire_mark).max()?;
                Some((job.name().clone(), last))
            })
            .collect()
    }

    /// How far retention has deleted each job's record of its schedule.
    pub(super) fn job_pruned_through(&self) -> Vec<(JobName, StoreTime)> {
        self.pruned_through.iter().map(|(job, through)| (job.clone(), *through)).collect()
    }

    /// The earliest due instant of the scheduled executions of `jobs` (of any job when empty).
    pub(super) fn next_due(&self, jobs: &[JobName]) -> Option<StoreTime> {
        self.executions
            .values()
            .filter(|e| e.status == ExecutionStatus::Scheduled)
            .filter(|e| jobs.is_empty() || jobs.contains(&e.job))
            .map(|e| e.due_at)
            .min()
    }

    /// Deletes, oldest first and at most `batch`, the job's final executions that its
    /// retention no longer keeps; returns how many.
    pub(super) fn prune(&mut self, params: PruneParams, now: StoreTime) -> u64 {
        let doomed = self.prunable(&params, now);
        let through =
            doomed.iter().filter_map(|id| self.executions.get(id)).filter_map(audit_mark).max();
        if let Some(through) = through {
            let mark = self.pruned_through.entry(params.job.clone()).or_insert(through);
            *mark = through.max(*mark);
        }
        for id in &doomed {
            self.remove(*id);
        }
        doomed.len() as u64
    }

    fn prunable(&self, params: &PruneParams, now: StoreTime) -> Vec<i64> {
        let retention = &params.retention;
        let executions: Vec<&Execution> = self.job_executions(&params.job).collect();
        let newest = executions.iter().max_by_key(|e| (e.scheduled_at, e.id)).map(|e| e.id);
        let last_fire =
            executions.iter().filter_map(|e| Some((fire_mark(e)?, e.id))).max().map(|(_, id)| id);
        let (mut succeeded, mut other) = (0u32, 0u32);
        let mut doomed: Vec<i64> = Vec::new();
        for execution in executions.iter().rev().filter(|e| e.status.is_final()) {
            let rank = match execution.status {
                ExecutionStatus::Succeeded => &mut succeeded,
                _ => &mut other,
            };
            let keep = match execution.status {
                ExecutionStatus::Succeeded => retention.keep_succeeded,
                _ => retention.keep_failed,
            };
            let over_count = *rank >= keep;
            *rank = rank.saturating_add(1);
            let too_old = execution
                .finished_at
                .is_some_and(|finished| finished.saturating_add(retention.max_age) < now);
            let protected = Some(execution.id) == newest || Some(execution.id) == last_fire;
            if (over_count || too_old) && !protected {
                doomed.push(execution.id);
            }
        }
        doomed.reverse();
        doomed.truncate(params.batch as usize);
        doomed
    }
}

/// The last fire a schedule record accounts for: its scheduled instant, or the end of the
/// missed run it stands for; `None` for records not written by the scheduler.
fn fire_mark(execution: &Execution) -> Option<StoreTime> {
    (execution.trigger == Trigger::Schedule).then(|| {
        execution
            .covers_through
            .map_or(execution.scheduled_at, |through| through.max(execution.scheduled_at))
    })
}

/// The last instant an execution of the schedule (a fire, its retry, or an external trigger of
/// it) accounts for: what an audit loses when its record is deleted.
fn audit_mark(execution: &Execution) -> Option<StoreTime> {
    matches!(execution.trigger, Trigger::Schedule | Trigger::Retry | Trigger::External).then(|| {
        execution.covers_through.map_or(execution.scheduled_at, |t| t.max(execution.scheduled_at))
    })
}

/// Takes up to `limit` items, and a cursor when more follow.
fn page<'a, T: Clone + 'a>(
    items: impl Iterator<Item = &'a T>,
    limit: u32,
    id: impl Fn(&T) -> i64,
) -> Page<T> {
    let limit = limit as usize;
    let mut items: Vec<T> = items.take(limit + 1).cloned().collect();
    let next = (items.len() > limit).then(|| {
        items.truncate(limit);
        Cursor::after(id(&items[limit - 1]))
    });
    Page { items, next }
}
