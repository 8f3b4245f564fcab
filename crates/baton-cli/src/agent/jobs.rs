//! Scheduled command jobs: each `[[job]]` becomes a scheduler job whose handler runs the
//! command for every execution.

use std::sync::Arc;

use baton::scheduler::{Job, JobBuilder, JobContext};

use super::config::{CommandJob, CommandSpec, ScheduleSpec};
use super::runner::Runner;

/// The builder of a job named `name` firing on `schedule`.
pub fn builder(name: &str, schedule: &ScheduleSpec) -> JobBuilder {
    match schedule {
        ScheduleSpec::Cron { expression, zone } => Job::cron(name, expression).time_zone(zone),
        ScheduleSpec::Every(interval) => Job::every(name, *interval),
        ScheduleSpec::At(at) => Job::once(name, *at),
    }
}

/// The scheduler job that runs `job`'s command.
pub fn command_job(job: &CommandJob, runner: Runner) -> baton::Result<Job> {
    let command = Arc::new(job.command.clone());
    builder(job.name.as_str(), &job.schedule).policy(job.policy).handler(move |ctx: JobContext| {
        let (command, runner) = (command.clone(), runner.clone());
        async move { run(&runner, &command, &ctx).await }
    })
}

/// Runs one execution: the command with the execution's variables; its output is kept with
/// the execution, and anything but exit status 0 fails it.
async fn run(runner: &Runner, command: &CommandSpec, ctx: &JobContext) -> Result<(), String> {
    let vars = [
        ("BATON_JOB", ctx.job().to_string()),
        ("BATON_FIRE_TIME", ctx.scheduled_at().to_string()),
        ("BATON_FENCING_TOKEN", ctx.token().to_string()),
        ("BATON_EXECUTION_ID", ctx.execution_id().to_string()),
        ("BATON_ATTEMPT", ctx.attempt().to_string()),
    ];
    let finished = runner
        .run(command, &vars, &ctx.cancellation_token(), None)
        .await
        .map_err(|err| err.to_string())?;
    if let Some(output) = &finished.output {
        ctx.set_output(output.as_str());
    }
    let result = finished.result();
    if let Err(why) = &result {
        tracing::info!(job = %ctx.job(), execution = ctx.execution_id(), why, "command failed");
    }
    result
}
