//! Recording executions: the scheduler leader's fires and missed runs, and triggers outside
//! the schedule.

use super::jobs_state::{Records, draft, start};
use crate::error::{Error, ErrorKind, Result};
use crate::job::{
    Execution, ExecutionStatus, FireKey, FiresRecorded, RecordFiresParams, Trigger, TriggerOutcome,
    TriggerParams,
};
use crate::schedule::JobName;
use crate::time::StoreTime;

/// What a write did, and whether it gave the workers something to claim (to wake them): an
/// execution newly scheduled, or a job freed while an execution of it waits.
pub(super) struct Written<T> {
    pub(super) outcome: T,
    pub(super) scheduled: bool,
}

impl Records {
    /// Records fires and missed runs at `now`; see [`MemoryJobStore`](super::MemoryJobStore).
    ///
    /// Every job is checked first, so that a batch naming an unregistered job records nothing.
    pub(super) fn record_fires(
        &mut self,
        params: RecordFiresParams,
        now: StoreTime,
    ) -> Result<Written<FiresRecorded>> {
        let jobs = params.fires.iter().map(|f| &f.job).chain(params.missed.iter().map(|m| &m.job));
        for job in jobs {
            self.require_job(job)?;
        }
        let mut inserted = 0;
        let mut scheduled = false;
        for run in params.missed {
            if self.accounts_for(&run.job, run.first, run.last) {
                continue;
            }
            let mut record = draft(&run.job, &FireKey::at(run.first), run.first, now);
            record.covers_through = Some(run.last);
            record.covers_count = run.count;
            record.status = ExecutionStatus::Missed;
            record.detail = Some(run.reason);
            record.finished_at = Some(now);
            inserted += u64::from(self.insert(record).is_some());
        }
        for fire in params.fires {
            if self.accounts_for(&fire.job, fire.scheduled_at, fire.scheduled_at) {
                continue;
            }
            let job = self.require_job(&fire.job)?;
            let skipped = if job.paused {
                Some("job is paused")
            } else if job.skip_through.is_some_and(|through| fire.scheduled_at <= through) {
                Some("skip-next")
            } else {
                None
            };
            let mut record =
                draft(&fire.job, &FireKey::at(fire.scheduled_at), fire.scheduled_at, now);
            record.due_at = fire.due_at;
            if let Some(reason) = skipped {
                record.status = ExecutionStatus::Skipped;
                record.detail = Some(reason.to_owned());
                record.finished_at = Some(now);
            }
            if self.insert(record).is_some() {
                inserted += 1;
                scheduled |= skipped.is_none();
            }
        }
        Ok(Written { outcome: FiresRecorded { inserted }, scheduled })
    }

    /// Whether a schedule record of `job` (a fire, or a missed run with every instant it
    /// covers) already accounts for an instant of `[first, last]`.
    fn accounts_for(&self, job: &JobName, first: StoreTime, last: StoreTime) -> bool {
        self.job_executions(job).any(|e| {
            e.trigger == Trigger::Schedule
                && e.scheduled_at <= last
                && e.covers_through.unwrap_or(e.scheduled_at) >= first
        })
    }

    /// Records an execution outside the schedule at `now`, or answers the fire's latest
    /// attempt when it needs no new one.
    pub(super) fn trigger(
        &mut self,
        params: TriggerParams,
        now: StoreTime,
    ) -> Result<Written<TriggerOutcome>> {
        params.check()?;
        self.require_job(&params.job)?;
        let scheduled_at = params.scheduled_at.unwrap_or(now);
        let key = params.fire_key.unwrap_or_else(|| FireKey::at(scheduled_at));
        let (attempt, scheduled_at) = match self.latest_attempt(&params.job, &key) {
            None => (1, scheduled_at),
            Some(latest) if needs_no_attempt(latest) => {
                let outcome = TriggerOutcome::Existing(latest.clone());
                return Ok(Written { outcome, scheduled: false });
            }
            // Attempts of one fire share its scheduled instant.
            Some(latest) => (latest.attempt.saturating_add(1), latest.scheduled_at),
        };
        let mut record = draft(&params.job, &key, scheduled_at, now);
        record.attempt = attempt;
        record.trigger = params.trigger;
        record.due_at = now;
        if let Some(node) = params.claim_for {
            let token = self.next_token()?;
            start(&mut record, node, token, now);
        }
        let recorded = self.insert(record).ok_or_else(|| {
            Error::new(
                ErrorKind::Internal,
                format!("attempt {attempt} of fire {key} recorded twice"),
            )
        })?;
        let scheduled = recorded.status == ExecutionStatus::Scheduled;
        Ok(Written { outcome: TriggerOutcome::Recorded(recorded), scheduled })
    }
}

/// Whether a fire whose latest attempt is `latest` is answered as it is: it succeeded, or is
/// still scheduled or running.
fn needs_no_attempt(latest: &Execution) -> bool {
    matches!(
        latest.status,
        ExecutionStatus::Succeeded | ExecutionStatus::Scheduled | ExecutionStatus::Running
    )
}
