//! Parsing `zk://[USER:PASSWORD@]HOST:PORT[,HOST:PORT…][/CHROOT][?session_timeout=DURATION]`.

use std::time::Duration;

use baton_core::echo::quoted;
use baton_core::url::redact;
use baton_core::{Error, Result};

/// The URL form, for error messages.
pub(crate) const FORM: &str =
    "zk://[USER:PASSWORD@]HOST:PORT[,HOST:PORT…][/CHROOT][?session_timeout=DURATION]";

/// The session timeout asked of the ensemble unless the URL says otherwise.
pub const DEFAULT_SESSION_TIMEOUT: Duration = Duration::from_secs(30);

/// The port a member listens on when the URL gives none.
const DEFAULT_PORT: u16 = 2181;

/// Where and how to reach an ensemble.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct Target {
    /// `host:port` of every member, in the URL's order.
    pub(crate) hosts: Vec<String>,
    /// The chroot every path lives under, such as `/apps/billing`; `None` for the root.
    pub(crate) chroot: Option<String>,
    /// `user:password` for digest authentication.
    pub(crate) digest: Option<String>,
    /// The session timeout to ask for.
    pub(crate) session_timeout: Duration,
    /// The URL with its password masked, for messages.
    pub(crate) shown: String,
}

impl std::fmt::Debug for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.shown)
    }
}

impl Target {
    /// The connect string the client library takes: members, then the chroot.
    pub(crate) fn connect_string(&self) -> String {
        format!("{}{}", self.hosts.join(","), self.chroot.as_deref().unwrap_or(""))
    }

    /// The members, for messages.
    pub(crate) fn endpoint(&self) -> String {
        self.hosts.join(",")
    }
}

fn invalid(url: &str, why: &str) -> Error {
    Error::invalid_input(format!(
        "invalid ZooKeeper URL {}: {why}; expected {FORM}",
        quoted(&redact(url))
    ))
}

/// Parses a `zk://` URL.
pub(crate) fn parse(url: &str) -> Result<Target> {
    let rest = url.strip_prefix("zk://").ok_or_else(|| invalid(url, "the scheme must be zk"))?;
    let (rest, query) = match rest.split_once('?') {
        Some((rest, query)) => (rest, Some(query)),
        None => (rest, None),
    };
    let (digest, rest) = match rest.rsplit_once('@') {
        Some((user_info, hosts)) => (Some(digest(url, user_info)?), hosts),
        None => (None, rest),
    };
    let (hosts, chroot) = match rest.find('/') {
        Some(at) => (&rest[..at], Some(chroot(url, &rest[at..])?)),
        None => (rest, None),
    };
    let hosts = hosts.split(',').map(|host| member(url, host)).collect::<Result<Vec<_>>>()?;
    let session_timeout = match query {
        Some(query) => session_timeout(url, query)?,
        None => DEFAULT_SESSION_TIMEOUT,
    };
    Ok(Target { hosts, chroot: chroot.flatten(), digest, session_timeout, shown: redact(url) })
}

fn digest(url: &str, user_info: &str) -> Result<String> {
    match user_info.split_once(':') {
        Some((user, password)) if !user.is_empty() && !password.is_empty() => {
            Ok(user_info.to_string())
        }
        _ => Err(invalid(url, "the credentials must be USER:PASSWORD (digest authentication)")),
    }
}

fn member(url: &str, text: &str) -> Result<String> {
    let (host, port) = match text.rsplit_once(':') {
        Some((host, port)) => {
            let port = port.parse::<u16>().ok().filter(|port| *port > 0).ok_or_else(|| {
                invalid(url, &format!("invalid port {} of member {}", quoted(port), quoted(text)))
            })?;
            (host, port)
        }
        None => (text, DEFAULT_PORT),
    };
    let valid = |c: char| c.is_ascii_alphanumeric() || c == '.' || c == '-';
    if host.is_empty() {
        return Err(invalid(url, "no host"));
    }
    if !host.chars().all(valid) {
        return Err(invalid(url, &format!("invalid host {}", quoted(host))));
    }
    Ok(format!("{host}:{port}"))
}

/// The chroot, `None` for `/` alone.
fn chroot(url: &str, path: &str) -> Result<Option<String>> {
    if path == "/" {
        return Ok(None);
    }
    let segments: Vec<&str> = path[1..].split('/').collect();
    let valid =
        |s: &&str| !s.is_empty() && *s != "." && *s != ".." && s.chars().all(|c| !c.is_control());
    if !segments.iter().all(valid) {
        return Err(invalid(
            url,
            &format!(
                "invalid chroot {}: expected /NAME[/NAME…] without empty, . or .. parts",
                quoted(path)
            ),
        ));
    }
    Ok(Some(path.to_string()))
}

fn session_timeout(url: &str, query: &str) -> Result<Duration> {
    let mut timeout = DEFAULT_SESSION_TIMEOUT;
    for param in query.split('&') {
        match param.split_once('=') {
            Some(("session_timeout", value)) => {
                timeout = baton_core::time::parse_duration(value)
                    .ok()
                    .filter(|timeout| *timeout >= Duration::from_millis(1))
                    .ok_or_else(|| {
                        invalid(
                            url,
                            &format!(
                                "invalid session_timeout {}: expected a duration such as 30s",
                                quoted(value)
                            ),
                        )
                    })?;
            }
            _ => {
                return Err(invalid(
                    url,
                    &format!(
                        "unknown parameter {}: only session_timeout is accepted",
                        quoted(param)
                    ),
                ));
            }
        }
    }
    Ok(timeout)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_members_chroot_credentials_and_timeout() {
        let target = parse("zk://u:secret@a:2182,b/apps/baton?session_timeout=20s").unwrap();
        assert_eq!(target.hosts, ["a:2182", "b:2181"]);
        assert_eq!(target.chroot.as_deref(), Some("/apps/baton"));
        assert_eq!(target.digest.as_deref(), Some("u:secret"));
        assert_eq!(target.session_timeout, Duration::from_secs(20));
        assert_eq!(target.connect_string(), "a:2182,b:2181/apps/baton");
        assert!(!format!("{target:?}").contains("secret"));
    }

    #[test]
    fn bad_urls_get_one_line_naming_the_value() {
        for (url, says) in [
            ("zk://", "no host"),
            ("zk://a:1,:2", "no host"),
            ("zk://a:99999", "invalid port"),
            ("zk://a:1//x", "invalid chroot"),
            ("zk://a:1/x/", "invalid chroot"),
            ("zk://u@a:1", "USER:PASSWORD"),
            ("zk://a:1?session_timeout=soon", "invalid session_timeout"),
            ("zk://a:1?tls=yes", "unknown parameter"),
            ("zk://a b:1", "invalid host"),
        ] {
            let err = parse(url).unwrap_err();
            assert_eq!(err.kind(), baton_core::ErrorKind::InvalidInput);
            let text = err.to_string();
            assert!(text.contains(says) && !text.contains('\n'), "{url}: {text}");
        }
    }
}
