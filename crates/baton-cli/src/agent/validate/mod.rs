//! Checking a parsed config file: every value, the names across jobs and batches, and the
//! timing as the scheduler and the cluster will see it. Nothing connects to the store.

mod batch;
mod command;
mod job;
mod schedule;
mod values;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::Path;
use std::time::Duration;

use baton::HolderId;
use baton::cluster::NodeId;

use super::config::{
    AgentConfig, DEFAULT_BACKEND, DEFAULT_GRACE_PERIOD, DEFAULT_LISTEN, DEFAULT_MAX_CONCURRENT,
    DEFAULT_OUTPUT_LIMIT, HttpConfig, MAX_OUTPUT_LIMIT, Timing,
};
use super::error::Problem;
use super::locate::KeyPath;
use super::schema::{RawConfig, RawHttp, RawTiming};
use values::{duration, optional_duration, token};

/// The environment variables that override keys of the file.
#[derive(Debug, Default, Clone)]
pub struct Environment {
    /// `BATON_BACKEND`, overriding `backend`.
    pub backend: Option<String>,
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
    let backend = match &context.env.backend {
        Some(url) => backend(url).map_err(|message| Problem::env("BATON_BACKEND", message))?,
        None => backend(raw.backend.as_deref().unwrap_or(DEFAULT_BACKEND))
            .map_err(|message| Problem::at(&root.key("backend"), message))?,
    };
    let node = match &raw.node_id {
        Some(id) => {
            NodeId::new(id.as_str()).map_err(|err| Problem::at(&root.key("node_id"), err))?
        }
        None => NodeId::from_host(context.host, fastrand::u32(..)),
    };
    let holder =
        HolderId::new(node.as_str()).map_err(|err| Problem::at(&root.key("node_id"), err))?;
    let grace_period = optional_duration(&root.key("grace_period"), raw.grace_period.as_ref())?
        .unwrap_or(DEFAULT_GRACE_PERIOD);
    let output_limit = match raw.output_limit {
        None => DEFAULT_OUTPUT_LIMIT,
        Some(limit) => usize::try_from(limit)
            .ok()
            .filter(|limit| *limit <= MAX_OUTPUT_LIMIT)
            .ok_or_else(|| {
                Problem::at(
                    &root.key("output_limit"),
                    format!("invalid output limit {limit}: expected 0 to {MAX_OUTPUT_LIMIT} bytes"),
                )
            })?,
    };
    let max_concurrent = match raw.max_concurrent {
        None => DEFAULT_MAX_CONCURRENT,
        Some(n @ 1..=10_000) => n as usize,
        Some(n) => {
            return Err(Problem::at(
                &root.key("max_concurrent"),
                format!("invalid max_concurrent {n}: expected 1 to 10000"),
            ));
        }
    };
    let timing = timing(&root.key("timing"), &raw.timing)?;
    let http = http(&root.key("http"), &raw.http, context.env)?;
    let mut names = HashMap::new();
    let mut jobs = Vec::with_capacity(raw.jobs.len());
    for (i, raw) in raw.jobs.iter().enumerate() {
        let table = root.key("job").index(i);
        let job = job::job(&table, raw, context.base)?;
        unique(&mut names, job.name.as_str(), table)?;
        jobs.push(job);
    }
    let mut batches = Vec::with_capacity(raw.batches.len());
    for (i, raw) in raw.batches.iter().enumerate() {
        let table = root.key("batch").index(i);
        let batch = batch::batch(&table, raw, context.base)?;
        unique(&mut names, batch.name.as_str(), table)?;
        batches.push(batch);
    }
    let config = AgentConfig {
        backend,
        node_generated: raw.node_id.is_none(),
        node,
        holder,
        grace_period,
        output_limit,
        max_concurrent,
        timing,
        http,
        jobs,
        batches,
    };
    let timing = root.key("timing");
    config.scheduler().validate().map_err(|err| Problem::at(&timing, err))?;
    config.cluster(context.host).validate().map_err(|err| Problem::at(&timing, err))?;
    Ok(config)
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

/// A backend URL of a scheme this build can open.
fn backend(url: &str) -> Result<String, String> {
    match url.split_once("://").map(|(scheme, _)| scheme) {
        Some("sqlite" | "postgres" | "postgresql" | "memory") => Ok(url.to_owned()),
        _ => Err(format!(
            "unknown backend URL {:?}: expected sqlite://PATH, postgres://USER@HOST:PORT/DB or memory://",
            baton::redact(url)
        )),
    }
}

fn timing(table: &KeyPath, raw: &RawTiming) -> Result<Timing, Problem> {
    let lease_ttl = optional_duration(&table.key("lease_ttl"), raw.lease_ttl.as_ref())?;
    if let Some(ttl) = lease_ttl {
        let holder = HolderId::new("check").expect("a valid holder id");
        let elector = baton::ElectorConfig::new(holder).with_ttl(ttl);
        elector.validate().map_err(|err| Problem::at(&table.key("lease_ttl"), err))?;
    }
    let key = table.key("heartbeat_interval");
    let heartbeat_interval = match &raw.heartbeat_interval {
        Some(text) => duration(&key, text)?,
        None => Duration::from_secs(2),
    };
    if heartbeat_interval < Duration::from_millis(10) {
        return Err(Problem::at(
            &key,
            format!("invalid heartbeat interval {heartbeat_interval:?}: expected at least 10ms"),
        ));
    }
    let key = table.key("unreachable_after");
    let unreachable_after = match &raw.unreachable_after {
        Some(text) => duration(&key, text)?,
        None => Duration::from_secs(10),
    };
    if unreachable_after < heartbeat_interval * 3 {
        return Err(Problem::at(
            &key,
            format!(
                "invalid unreachable threshold {unreachable_after:?}: expected at least three \
                 heartbeat intervals ({:?})",
                heartbeat_interval * 3
            ),
        ));
    }
    Ok(Timing { lease_ttl, heartbeat_interval, unreachable_after })
}

fn http(table: &KeyPath, raw: &RawHttp, env: &Environment) -> Result<HttpConfig, Problem> {
    let key = table.key("listen");
    let text = raw.listen.as_deref().unwrap_or(DEFAULT_LISTEN);
    let listen: SocketAddr = text.parse().map_err(|_| {
        Problem::at(
            &key,
            format!("invalid listen address {text:?}: expected IP:PORT, such as 127.0.0.1:8080 or [::]:8080"),
        )
    })?;
    let admin_token = token_setting(
        ("BATON_ADMIN_TOKEN", env.admin_token.as_deref()),
        (&table.key("admin_token"), raw.admin_token.as_deref()),
    )?;
    let read_token = token_setting(
        ("BATON_READ_TOKEN", env.read_token.as_deref()),
        (&table.key("read_token"), raw.read_token.as_deref()),
    )?;
    Ok(HttpConfig { listen, admin_token, read_token })
}

/// A token from its environment variable, or else from its key.
fn token_setting(
    (variable, from_env): (&'static str, Option<&str>),
    (key, from_file): (&KeyPath, Option<&str>),
) -> Result<Option<String>, Problem> {
    match (from_env, from_file) {
        (Some(text), _) => token(text).map(Some).map_err(|message| Problem::env(variable, message)),
        (None, Some(text)) => token(text).map(Some).map_err(|message| Problem::at(key, message)),
        (None, None) => Ok(None),
    }
}
