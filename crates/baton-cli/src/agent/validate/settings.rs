//! The top-level settings: backend, node id, limits, `[timing]` and `[http]`, with the
//! environment variables that override some of them.

use std::net::SocketAddr;
use std::time::Duration;

use baton::cluster::NodeId;
use baton::{ElectorConfig, HolderId, UrlKind};

use super::super::config::{
    DEFAULT_BACKEND, DEFAULT_LISTEN, DEFAULT_MAX_CONCURRENT, DEFAULT_OUTPUT_LIMIT, HttpConfig,
    MAX_OUTPUT_LIMIT, Timing,
};
use super::super::error::Problem;
use super::super::locate::KeyPath;
use super::super::schema::{RawHttp, RawTiming};
use super::Environment;
use super::values::{duration, optional_duration, token};

/// The backend URL: `BATON_BACKEND`, else the `backend` key, else the default.
pub fn backend(key: &KeyPath, text: Option<&str>, env: &Environment) -> Result<String, Problem> {
    match &env.backend {
        Some(url) => backend_url(url).map_err(|message| Problem::env("BATON_BACKEND", message)),
        None => backend_url(text.unwrap_or(DEFAULT_BACKEND))
            .map_err(|message| Problem::at(key, message)),
    }
}

/// The node id from `node_id`, or drawn from the host name and a random number.
pub fn node(key: &KeyPath, text: Option<&str>, host: &str) -> Result<(NodeId, HolderId), Problem> {
    let node = match text {
        Some(id) => NodeId::new(id).map_err(|err| Problem::at(key, err))?,
        None => NodeId::from_host(host, fastrand::u32(..)),
    };
    let holder = HolderId::new(node.as_str()).map_err(|err| Problem::at(key, err))?;
    Ok((node, holder))
}

/// `output_limit`: 0 to [`MAX_OUTPUT_LIMIT`] bytes.
pub fn output_limit(key: &KeyPath, limit: Option<u64>) -> Result<usize, Problem> {
    let Some(limit) = limit else { return Ok(DEFAULT_OUTPUT_LIMIT) };
    usize::try_from(limit).ok().filter(|limit| *limit <= MAX_OUTPUT_LIMIT).ok_or_else(|| {
        Problem::at(
            key,
            format!("invalid output limit {limit}: expected 0 to {MAX_OUTPUT_LIMIT} bytes"),
        )
    })
}

/// `max_concurrent`: 1 to 10000.
pub fn max_concurrent(key: &KeyPath, max: Option<u32>) -> Result<usize, Problem> {
    match max {
        None => Ok(DEFAULT_MAX_CONCURRENT),
        Some(n @ 1..=10_000) => Ok(n as usize),
        Some(n) => {
            Err(Problem::at(key, format!("invalid max_concurrent {n}: expected 1 to 10000")))
        }
    }
}

/// The `[timing]` table.
pub fn timing(table: &KeyPath, raw: &RawTiming) -> Result<Timing, Problem> {
    let lease_ttl = optional_duration(&table.key("lease_ttl"), raw.lease_ttl.as_ref())?;
    if let Some(ttl) = lease_ttl {
        crate::ttl::check(ttl).map_err(|message| Problem::at(&table.key("lease_ttl"), message))?;
        ElectorConfig::default()
            .with_ttl(ttl)
            .validate()
            .map_err(|err| Problem::at(&table.key("lease_ttl"), err))?;
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

/// The `[http]` table, with the tokens from the environment when set there.
pub fn http(table: &KeyPath, raw: &RawHttp, env: &Environment) -> Result<HttpConfig, Problem> {
    let parse = |text: &str| {
        text.parse::<SocketAddr>().map_err(|_| {
            format!(
                "invalid listen address {}: expected IP:PORT, such as 127.0.0.1:8080 or \
                 [::]:8080 (port 0 picks a free port)",
                baton::core::echo::quoted(text)
            )
        })
    };
    let listen = match (env.listen.as_deref(), raw.listen.as_deref()) {
        (Some(text), _) => parse(text).map_err(|message| Problem::env("BATON_LISTEN", message))?,
        (None, text) => parse(text.unwrap_or(DEFAULT_LISTEN))
            .map_err(|message| Problem::at(&table.key("listen"), message))?,
    };
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

/// A backend URL of a scheme this build can open.
fn backend_url(url: &str) -> Result<String, String> {
    match baton::url_kind(url).map_err(|err| err.to_string())? {
        UrlKind::Everything => Ok(url.to_owned()),
        UrlKind::LeasesOnly => Err(format!(
            "{} holds leases only: put it in `lease_backend`, and in `backend` the store that \
             keeps jobs and nodes (sqlite://PATH, postgres://USER@HOST:PORT/DB or \
             mysql://USER@HOST:PORT/DB)",
            baton::redact(url)
        )),
    }
}

/// The lease store's URL, when not `backend`: `BATON_LEASE_BACKEND`, else the `lease_backend`
/// key. Any store that holds leases is accepted.
pub fn lease_backend(
    key: &KeyPath,
    text: Option<&str>,
    env: &Environment,
) -> Result<Option<String>, Problem> {
    let check = |url: &str| baton::url_kind(url).map(|_| url.to_owned()).map_err(|e| e.to_string());
    match (&env.lease_backend, text) {
        (Some(url), _) => check(url).map(Some).map_err(|m| Problem::env("BATON_LEASE_BACKEND", m)),
        (None, Some(url)) => check(url).map(Some).map_err(|message| Problem::at(key, message)),
        (None, None) => Ok(None),
    }
}
