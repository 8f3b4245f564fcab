//! A `[[job]]`: name, command, schedule and policies.

use std::path::Path;

use baton::core::schedule::{
    JobName, JobPolicy, MAX_BACKOFF, MisfirePolicy, OverlapPolicy, Retention, RetryPolicy,
};

use super::super::config::CommandJob;
use super::super::error::Problem;
use super::super::locate::KeyPath;
use super::super::schema::{RawJob, RawRetention, RawRetry};
use super::command::{CommandKeys, command};
use super::schedule::{ScheduleKeys, schedule};
use super::values::{duration, named, optional_duration};

/// The job at `table`.
pub fn job(table: &KeyPath, raw: &RawJob, base: &Path) -> Result<CommandJob, Problem> {
    let name = name(table, raw.name.as_deref())?;
    let keys = CommandKeys {
        command: raw.command.as_ref().map(|line| line.0.as_slice()),
        working_dir: raw.working_dir.as_deref(),
        env: &raw.env,
    };
    let command = command(table, &keys, base)?;
    let keys = ScheduleKeys {
        cron: raw.cron.as_deref(),
        every: raw.every.as_ref(),
        at: raw.at.as_deref(),
        time_zone: raw.time_zone.as_deref(),
    };
    let schedule = schedule(table, &keys)?.ok_or_else(|| {
        Problem::at(table, "no schedule: expected exactly one of cron, every or at")
    })?;
    let policy = policy(table, raw)?;
    Ok(CommandJob { name, schedule, policy, command })
}

/// The `name` of the table at `table`.
pub fn name(table: &KeyPath, name: Option<&str>) -> Result<JobName, Problem> {
    let key = table.key("name");
    let name = name
        .ok_or_else(|| Problem::at(&key, "missing: expected a name such as \"nightly-report\""))?;
    JobName::new(name).map_err(|err| Problem::at(&key, err))
}

/// The job's policies, each key checked on its own so that a refusal names it.
fn policy(table: &KeyPath, raw: &RawJob) -> Result<JobPolicy, Problem> {
    let mut policy = JobPolicy::default();
    let check = |key: &str, candidate: JobPolicy| {
        candidate.validate().map(|()| candidate).map_err(|err| Problem::at(&table.key(key), err))
    };
    if let Some(text) = &raw.overlap {
        policy = policy.with_overlap(named::<OverlapPolicy>(&table.key("overlap"), text)?);
    }
    if let Some(text) = &raw.misfire {
        policy = policy.with_misfire(named::<MisfirePolicy>(&table.key("misfire"), text)?);
    }
    if let Some(text) = &raw.misfire_threshold {
        let value = duration(&table.key("misfire_threshold"), text)?;
        check("misfire_threshold", JobPolicy::default().with_misfire_threshold(value))?;
        policy = policy.with_misfire_threshold(value);
    }
    if let Some(text) = &raw.catch_up_window {
        let value = duration(&table.key("catch_up_window"), text)?;
        check("catch_up_window", JobPolicy::default().with_catch_up_window(value))?;
        policy = policy.with_catch_up_window(value);
    }
    if let Some(value) = raw.catch_up_max {
        check("catch_up_max", JobPolicy::default().with_catch_up_max(value))?;
        policy = policy.with_catch_up_max(value);
    }
    let key = table.key("starting_deadline");
    if let Some(value) = optional_duration(&key, raw.starting_deadline.as_ref())? {
        check("starting_deadline", JobPolicy::default().with_starting_deadline(Some(value)))?;
        policy = policy.with_starting_deadline(Some(value));
    }
    if let Some(text) = &raw.jitter {
        let value = duration(&table.key("jitter"), text)?;
        check("jitter", JobPolicy::default().with_jitter(value))?;
        policy = policy.with_jitter(value);
    }
    if let Some(value) = optional_duration(&table.key("timeout"), raw.timeout.as_ref())? {
        check("timeout", JobPolicy::default().with_timeout(Some(value)))?;
        policy = policy.with_timeout(Some(value));
    }
    if let Some(retry) = &raw.retry {
        policy = policy.with_retry(retry_policy(&table.key("retry"), retry)?);
    }
    if let Some(retention) = &raw.retention {
        policy = policy.with_retention(retention_policy(&table.key("retention"), retention)?);
    }
    policy.validate().map_err(|err| Problem::at(table, err))?;
    Ok(policy)
}

fn retry_policy(table: &KeyPath, raw: &RawRetry) -> Result<RetryPolicy, Problem> {
    let mut retry = RetryPolicy::default();
    let check = |key: &str, candidate: RetryPolicy| {
        candidate.validate().map(|()| candidate).map_err(|err| Problem::at(&table.key(key), err))
    };
    if let Some(attempts) = raw.max_attempts {
        retry = check("max_attempts", retry.with_max_attempts(attempts))?;
    }
    let initial = optional_duration(&table.key("initial_backoff"), raw.initial_backoff.as_ref())?;
    if let Some(initial) = initial {
        check("initial_backoff", RetryPolicy::default().with_backoff(initial, MAX_BACKOFF))?;
    }
    let max = optional_duration(&table.key("max_backoff"), raw.max_backoff.as_ref())?;
    let initial = initial.unwrap_or(retry.initial_backoff);
    let max = max.unwrap_or(retry.max_backoff);
    check("max_backoff", retry.with_backoff(initial, max))
}

fn retention_policy(table: &KeyPath, raw: &RawRetention) -> Result<Retention, Problem> {
    let defaults = Retention::default();
    let mut retention = defaults.with_counts(
        raw.keep_succeeded.unwrap_or(defaults.keep_succeeded),
        raw.keep_failed.unwrap_or(defaults.keep_failed),
    );
    if let Some(text) = &raw.max_age {
        let key = table.key("max_age");
        retention = retention.with_max_age(duration(&key, text)?);
        retention.validate().map_err(|err| Problem::at(&key, err))?;
    }
    Ok(retention)
}
