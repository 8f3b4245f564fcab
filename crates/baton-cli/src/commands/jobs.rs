//! `baton jobs`: list, show, trigger, pause, resume and skip-next.

use anyhow::Context;
use baton::Cursor;
use baton::core::job::{JobListParams, TriggerOutcome, TriggerParams};
use baton::core::page::check_page_size;
use baton::core::schedule::JobName;
use baton::core::{Job, JobStore, Trigger};
use baton_server::reads;

use super::connect;
use super::output::print_json;
use crate::cli::{JobArg, JobsCommand, Output};

pub async fn run(command: JobsCommand, output: Output) -> anyhow::Result<()> {
    match command {
        JobsCommand::List(args) => {
            let params = JobListParams {
                after: args.after.as_deref().map(Cursor::parse).transpose()?,
                limit: check_page_size(args.limit)?,
                ..JobListParams::default()
            };
            let store = connect(&args.backend).await?.jobs();
            if output == Output::Json {
                return print_json(&reads::job_page(&store, params).await?);
            }
            let page = store.job_list(params).await?;
            println!("{:<32} {:<7} {:<10} SCHEDULE", "JOB", "STATE", "OVERLAP");
            for job in &page.items {
                println!(
                    "{:<32} {:<7} {:<10} {}",
                    job.name(),
                    if job.paused { "paused" } else { "active" },
                    job.definition.policy.overlap,
                    job.definition.schedule
                );
            }
            if let Some(next) = page.next {
                println!("next page: --after {next}");
            }
        }
        JobsCommand::Show(arg) => {
            let (store, name) = open(&arg).await?;
            if output == Output::Json {
                return print_json(&reads::job(&*store, &name).await?);
            }
            let job = existing(&*store, &name).await?;
            let now = store.now().await?;
            print_job(&job, job.definition.schedule.next_after(now));
        }
        JobsCommand::Trigger(arg) => {
            let (store, name) = open(&arg).await?;
            let params = TriggerParams {
                job: name.clone(),
                fire_key: None,
                scheduled_at: None,
                trigger: Trigger::Manual,
                claim_for: None,
            };
            match store.trigger(params).await? {
                TriggerOutcome::Recorded(execution) | TriggerOutcome::Existing(execution) => {
                    println!("job {name}: execution {} due now", execution.id);
                }
                _ => anyhow::bail!("unexpected trigger outcome"),
            }
        }
        JobsCommand::Pause(arg) => set_paused(&arg, true).await?,
        JobsCommand::Resume(arg) => set_paused(&arg, false).await?,
        JobsCommand::SkipNext(arg) => {
            let (store, name) = open(&arg).await?;
            let job = existing(&*store, &name).await?;
            let from = store
                .now()
                .await?
                .max(job.skip_through.unwrap_or(baton::StoreTime::from_millis(0)));
            let next = job
                .definition
                .schedule
                .next_after(from)
                .with_context(|| format!("job {name} has no fire left to skip"))?;
            store.job_skip_through(&name, next).await?;
            println!("job {name}: the fire at {next} will be skipped");
        }
    }
    Ok(())
}

async fn set_paused(arg: &JobArg, paused: bool) -> anyhow::Result<()> {
    let (store, name) = open(arg).await?;
    let job = store.job_set_paused(&name, paused).await?;
    println!("job {name} is {}", if job.paused { "paused" } else { "active" });
    Ok(())
}

async fn open(arg: &JobArg) -> anyhow::Result<(std::sync::Arc<dyn JobStore>, JobName)> {
    let name: JobName = arg.name.parse()?;
    Ok((connect(&arg.backend).await?.jobs(), name))
}

/// Reads a job, or fails with a NotFound error naming it.
pub async fn existing(store: &dyn JobStore, name: &JobName) -> anyhow::Result<Job> {
    store.job_get(name).await?.ok_or_else(|| baton::core::job::job_not_registered(name).into())
}

fn print_job(job: &Job, next: Option<baton::StoreTime>) {
    let policy = &job.definition.policy;
    println!("job        {}", job.name());
    println!("schedule   {}", job.definition.schedule);
    println!("state      {}", if job.paused { "paused" } else { "active" });
    if let Some(through) = job.skip_through {
        println!("skipping   fires up to {through}");
    }
    println!("next fire  {}", next.map_or("none".to_string(), |at| at.to_string()));
    println!("overlap    {}", policy.overlap);
    println!("misfire    {} (threshold {:?})", policy.misfire, policy.misfire_threshold);
    println!("timeout    {}", policy.timeout.map_or("none".to_string(), |t| format!("{t:?}")));
    match policy.retry.max_attempts {
        1 => println!("retries    none (1 attempt)"),
        n => println!(
            "retries    up to {n} attempts, backoff {:?} to {:?}",
            policy.retry.initial_backoff, policy.retry.max_backoff
        ),
    }
    println!("registered {}", job.created_at);
}
