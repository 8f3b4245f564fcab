//! Parsing a `redis://` URL, and describing it and its errors without the password.

use baton_core::echo::quoted;
use baton_core::url::{redact, single_line};
use baton_core::{Error, Result};
use redis::{ConnectionInfo, IntoConnectionInfo};

const EXPECTED: &str = "expected redis://[user:password@]host:port[/db]";

/// Where to connect, as parsed from a URL.
pub(crate) struct Target {
    /// What redis-rs needs to connect.
    pub(crate) info: ConnectionInfo,
    /// `host:port/db`, for messages.
    pub(crate) endpoint: String,
    /// The password, so that it can be masked wherever a message might echo it.
    password: Option<String>,
}

impl Target {
    /// The database index selected by the URL.
    pub(crate) fn db(&self) -> i64 {
        self.info.redis_settings().db()
    }

    /// `text` on one line with the password masked.
    pub(crate) fn scrub(&self, text: &str) -> String {
        let line = single_line(text);
        match self.password.as_deref().filter(|password| !password.is_empty()) {
            Some(password) => line.replace(password, "***"),
            None => line,
        }
    }
}

/// Parses a `redis://` URL. Other schemes, TLS (`rediss://`) and several hosts (a Redis
/// Cluster) are refused; every message shows the URL with its password masked.
pub(crate) fn parse(url: &str) -> Result<Target> {
    let invalid = |why: &str| {
        Error::invalid_input(format!("invalid Redis URL {}: {why}", quoted(&redact(url))))
    };
    let (scheme, rest) = url.split_once("://").ok_or_else(|| invalid(EXPECTED))?;
    match scheme {
        "redis" => {}
        "rediss" => {
            return Err(invalid(
                "TLS (rediss://) is not supported; connect with redis:// (through a TLS tunnel \
                 where the network needs one)",
            ));
        }
        other => return Err(invalid(&format!("unsupported scheme {other}://, {EXPECTED}"))),
    }
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let hosts = authority.rsplit('@').next().unwrap_or_default();
    if hosts.contains(',') {
        return Err(invalid("several hosts: Redis Cluster is not supported"));
    }
    let info = url.into_connection_info().map_err(|err| {
        let cause = single_line(&err.to_string());
        invalid(&format!("{cause} ({EXPECTED})"))
    })?;
    let redis = info.redis_settings();
    let endpoint = format!("{}/{}", info.addr(), redis.db());
    let password = redis.password().map(str::to_string);
    let target = Target { info, endpoint, password };
    Ok(target)
}

#[cfg(test)]
mod tests {
    use super::*;
    use baton_core::ErrorKind;

    #[test]
    fn reads_host_port_database_and_password() {
        let target = parse("redis://app:hunter2@10.0.0.7:6380/3").unwrap();
        assert_eq!(target.endpoint, "10.0.0.7:6380/3");
        assert_eq!(target.db(), 3);
        assert_eq!(target.scrub("AUTH app hunter2\nfailed"), "AUTH app *** failed");
        assert_eq!(parse("redis://localhost").unwrap().endpoint, "localhost:6379/0");
    }

    #[test]
    fn refuses_tls_clusters_and_other_schemes_in_one_line_without_the_password() {
        for (url, expected) in [
            ("rediss://u:hunter2@db:6379", "TLS (rediss://) is not supported"),
            ("redis://u:hunter2@a:6379,b:6379", "Redis Cluster is not supported"),
            ("redis+sentinel://u:hunter2@db", "unsupported scheme redis+sentinel://"),
            ("postgres://u:hunter2@db/x", "expected redis://"),
            ("u:hunter2@db:6379", "expected redis://"),
            ("redis://u:hunter2@db:6379/x", "database"),
        ] {
            let err = parse(url).err().unwrap_or_else(|| panic!("{url} must be refused"));
            let message = err.to_string();
            assert_eq!(err.kind(), ErrorKind::InvalidInput, "{message}");
            assert!(message.contains(expected), "{url}: {message}");
            assert!(!message.contains("hunter2"), "{message}");
            assert!(!message.contains('\n'), "{message}");
        }
    }
}
