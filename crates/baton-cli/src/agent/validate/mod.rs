//! Checking a parsed config file: every value, the names across jobs and batches, and the
//! timing as the scheduler and the cluster will see it. Nothing connects to the store.

mod batch;
mod command;
mod job;
mod schedule;
mod settings;
mod values;

use std::collections::HashMap;
use std::path::Path;

use super::config::{AgentConfig, CommandBatch, CommandJob, DEFAULT_GRACE_PERIOD};
use super::error::Problem;
use super::locate::KeyPath;
use super::schema::RawConfig;
use values::optional_duration;

/// The environment variables that override keys of the file.
#[derive(Debug, Default, Clone)]
pub struct Environment {
    /// `BATON_BACKEND`, overriding `backend`.
    pub backend: Option<String>,
    /// `BATON_LEASE_BACKEND`, overriding `lease_backend`.
    pub lease_backend: Option<String>,
    /// `BATON_LISTEN`, overriding `http.listen`.
    pub listen: Option<String>,
    /// `BATON_ADMIN_TOKEN`, overriding `http.admin_token`.
    pub admin_token: Option<String>,
    /// `BATON_READ_TOKEN`, overriding `http.read_token`.
    pub read_token: Option<String>,
}

impl Environment {
    /// The variables as this process has them.
    pub fn current() -> Self {
        let var = |name| std::env::var(name).ok();
        Environment {
            backend: var("BATON_BACKEND"),
            lease_backend: var("BATON_LEASE_BACKEND"),
            listen: var("BATON_LISTEN"),
            admin_token: var("BATON_ADMIN_TOKEN"),
            read_token: var("BATON_READ_TOKEN"),
        }
    }
}

/// What checking needs besides the file.
pub struct Context<'a> {
    /// The config file's directory, against which relative working directories are read.
    pub base: &'a Path,
    /// This machine's host name, for the default node id.
    pub host: &'a str,
    /// The overriding environment variables.
    pub env: &'a Environment,
}

/// Checks every value of `raw` and answers the configuration, or the first refused value.
pub fn validate(raw: &RawConfig, context: &Context<'_>) -> Result<AgentConfig, Problem> {
    let root = KeyPath::root();
    let (node, holder) =
        settings::node(&root.key("node_id"), raw.node_id.as_deref(), context.host)?;
    let (jobs, batches) = jobs_and_batches(raw, context.base)?;
    let config = AgentConfig {
        backend: settings::backend(&root.key("backend"), raw.backend.as_deref(), context.env)?,
        lease_backend: settings::lease_backend(
            &root.key("lease_backend"),
            raw.lease_backend.as_deref(),
            context.env,
        )?,
        pass_backend: raw.pass_backend.unwrap_or(false),
        node_generated: raw.node_id.is_none(),
        node,
        holder,
        grace_period: optional_duration(&root.key("grace_period"), raw.grace_period.as_ref())?
            .unwrap_or(DEFAULT_GRACE_PERIOD),
        output_limit: settings::output_limit(&root.key("output_limit"), raw.output_limit)?,
        max_concurrent: settings::max_concurrent(&root.key("max_concurrent"), raw.max_concurrent)?,
        timing: settings::timing(&root.key("timing"), &raw.timing)?,
        http: settings::http(&root.key("http"), &raw.http, context.env)?,
        jobs,
        batches,
    };
    let timing = root.key("timing");
    config.scheduler().validate().map_err(|err| Problem::at(&timing, err))?;
    config.cluster(context.host).validate().map_err(|err| Problem::at(&timing, err))?;
    Ok(config)
}

/// Every job and batch, their names unique across both.
fn jobs_and_batches(
    raw: &RawConfig,
    base: &Path,
) -> Result<(Vec<CommandJob>, Vec<CommandBatch>), Problem> {
    let mut names = HashMap::new();
    let mut jobs = Vec::with_capacity(raw.jobs.len());
    for (i, raw) in raw.jobs.iter().enumerate() {
        let table = KeyPath::root().key("job").index(i);
        let job = job::job(&table, raw, base)?;
        unique(&mut names, job.name.as_str(), table)?;
        jobs.push(job);
    }
    let mut batches = Vec::with_capacity(raw.batches.len());
    for (i, raw) in raw.batches.iter().enumerate() {
        let table = KeyPath::root().key("batch").index(i);
        let batch = batch::batch(&table, raw, base)?;
        unique(&mut names, batch.name.as_str(), table)?;
        batches.push(batch);
    }
    Ok((jobs, batches))
}

/// Refuses a name already used by another job or batch.
fn unique(names: &mut HashMap<String, KeyPath>, name: &str, table: KeyPath) -> Result<(), Problem> {
    let key = table.key("name");
    if let Some(first) = names.insert(name.to_owned(), table) {
        return Err(Problem::at(
            &key,
            format!(
                "duplicate name {name:?}, also {first}: expected each name once across [[job]] and [[batch]]"
            ),
        ));
    }
    Ok(())
}
