//! Parsing `consul://HOST:PORT[?prefix=…&lock_delay=…&timeout=…]`. The URL carries no secret:
//! the ACL token comes from `CONSUL_HTTP_TOKEN`, as for Consul's own command line.

use std::time::Duration;

use baton_core::echo::quoted;
use baton_core::time::parse_duration;
use baton_core::url::{percent_decode, redact};
use baton_core::{Error, Result};

/// The URL form, for error messages.
pub(crate) const FORM: &str =
    "consul://HOST:PORT[?prefix=PATH&lock_delay=DURATION&timeout=DURATION]";

/// The key prefix unless the URL names one.
pub const DEFAULT_PREFIX: &str = "baton";

/// How long one request to the agent may take unless the URL says otherwise.
pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(5);

/// The longest lock-delay Consul keeps.
const MAX_LOCK_DELAY: Duration = Duration::from_secs(60);

/// Where the leases live and how to reach the agent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Target {
    /// The agent's `host:port`.
    pub(crate) address: String,
    /// The key prefix, without slashes at either end.
    pub(crate) prefix: String,
    /// The lock-delay of every session: how long Consul keeps a lease's key from a new holder
    /// after its session was invalidated.
    pub(crate) lock_delay: Duration,
    /// How long one request may take before its outcome is judged unknown.
    pub(crate) timeout: Duration,
}

/// The error of a bad URL, which is shown with its credentials masked.
fn invalid(url: &str, why: &str) -> Error {
    let shown = quoted(&redact(url));
    Error::invalid_input(format!("invalid Consul URL {shown}: {why}; expected {FORM}"))
}

/// Parses a `consul://` URL.
pub(crate) fn parse(url: &str) -> Result<Target> {
    let rest =
        url.strip_prefix("consul://").ok_or_else(|| invalid(url, "the scheme must be consul"))?;
    let (address, query) = rest.split_once('?').unwrap_or((rest, ""));
    let address = address.trim_end_matches('/');
    if address.contains('@') {
        return Err(invalid(
            url,
            "credentials do not go in the URL: give the ACL token in CONSUL_HTTP_TOKEN",
        ));
    }
    let port = address.rsplit_once(':').map(|(host, port)| (host, port.parse::<u16>()));
    match port {
        Some((host, Ok(port))) if !host.is_empty() && port != 0 => {}
        _ => {
            return Err(invalid(
                url,
                &format!("the agent address {} is not HOST:PORT", quoted(address)),
            ));
        }
    }
    let mut target = Target {
        address: address.to_string(),
        prefix: DEFAULT_PREFIX.to_string(),
        lock_delay: Duration::ZERO,
        timeout: DEFAULT_REQUEST_TIMEOUT,
    };
    for pair in query.split('&').filter(|pair| !pair.is_empty()) {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        let value = percent_decode(value)
            .filter(|value| !value.is_empty())
            .ok_or_else(|| invalid(url, &format!("parameter {key} needs a value")))?;
        let duration = |what: &str| {
            parse_duration(&value).map_err(|_| {
                invalid(url, &format!("{what} {} is not a duration such as 5s", quoted(&value)))
            })
        };
        match key {
            "prefix" => {
                let prefix = value.trim_matches('/');
                if prefix.is_empty() || prefix.chars().any(|c| c.is_control() || c == ' ') {
                    return Err(invalid(
                        url,
                        &format!("prefix {} is not a KV path such as baton", quoted(&value)),
                    ));
                }
                target.prefix = prefix.to_string();
            }
            "lock_delay" => {
                let delay = duration("lock_delay")?;
                if delay > MAX_LOCK_DELAY {
                    return Err(invalid(
                        url,
                        &format!("lock_delay {} is over Consul's 60s", quoted(&value)),
                    ));
                }
                target.lock_delay = delay;
            }
            "timeout" => {
                target.timeout = duration("timeout")?;
                if target.timeout.is_zero() {
                    return Err(invalid(url, "timeout must be more than zero"));
                }
            }
            other => {
                return Err(invalid(
                    url,
                    &format!(
                        "unknown parameter {}: accepted are prefix, lock_delay and timeout",
                        quoted(other)
                    ),
                ));
            }
        }
    }
    Ok(target)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_url_names_the_agent_and_its_settings() {
        let target = parse("consul://127.0.0.1:8500").unwrap();
        assert_eq!(target.address, "127.0.0.1:8500");
        assert_eq!((target.prefix.as_str(), target.lock_delay), ("baton", Duration::ZERO));
        let target =
            parse("consul://agent:8500/?prefix=/teams/pay/&lock_delay=15s&timeout=2s").unwrap();
        assert_eq!(target.prefix, "teams/pay");
        assert_eq!(target.lock_delay, Duration::from_secs(15));
        assert_eq!(target.timeout, Duration::from_secs(2));
    }

    #[test]
    fn bad_urls_fail_in_one_line_naming_the_value() {
        for (url, expected) in [
            ("consul://agent", "\"agent\" is not HOST:PORT"),
            ("consul://agent:http", "is not HOST:PORT"),
            ("consul://user:secret@agent:8500", "give the ACL token in CONSUL_HTTP_TOKEN"),
            ("consul://agent:8500?lock_delay=2m", "over Consul's 60s"),
            ("consul://agent:8500?timeout=soon", "\"soon\" is not a duration"),
            ("consul://agent:8500?token=abc", "unknown parameter \"token\""),
            ("etcd://agent:8500", "the scheme must be consul"),
        ] {
            let err = parse(url).unwrap_err().to_string();
            assert!(err.contains(expected), "{url}: {err}");
            assert!(!err.contains('\n') && !err.contains("secret"), "{err}");
        }
    }
}
