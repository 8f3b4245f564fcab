//! Parsing a `postgres://` URL into connection options, and describing it without secrets.

use baton_core::echo::quoted;
use baton_core::url::{redact, single_line};
use baton_core::{Error, Result};
use sqlx::postgres::PgConnectOptions;

const SCHEMES: [&str; 2] = ["postgres://", "postgresql://"];
const EXPECTED: &str = "expected postgres://user:password@host:port/database";

/// Parses a `postgres://` or `postgresql://` URL. Messages show the URL with its password
/// masked.
pub(crate) fn parse(url: &str) -> Result<PgConnectOptions> {
    if !SCHEMES.iter().any(|scheme| url.starts_with(scheme)) {
        return Err(Error::invalid_input(format!(
            "invalid PostgreSQL URL {}: {EXPECTED}",
            quoted(&redact(url))
        )));
    }
    let options = url.parse::<PgConnectOptions>().map_err(|err| {
        let cause = match err {
            sqlx::Error::Configuration(cause) => cause.to_string(),
            other => other.to_string(),
        };
        Error::invalid_input(format!(
            "invalid PostgreSQL URL {}: {} ({EXPECTED})",
            quoted(&redact(url)),
            single_line(&cause)
        ))
    })?;
    Ok(match options.get_application_name() {
        Some(_) => options,
        None => options.application_name("baton"),
    })
}

/// Where the options point, as `host:port` or the socket path, for messages.
pub(crate) fn endpoint(options: &PgConnectOptions) -> String {
    match options.get_socket() {
        Some(socket) => socket.display().to_string(),
        None => format!("{}:{}", options.get_host(), options.get_port()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_other_schemes_without_echoing_the_password() {
        let err = parse("mysql://app:hunter2@db/x").unwrap_err();
        assert_eq!(err.kind(), baton_core::ErrorKind::InvalidInput);
        assert!(!err.to_string().contains("hunter2"), "{err}");
        assert!(err.to_string().contains("expected postgres://"), "{err}");
    }

    #[test]
    fn names_host_and_port() {
        let options = parse("postgresql://app:pw@10.0.0.7:6543/db").unwrap();
        assert_eq!(endpoint(&options), "10.0.0.7:6543");
        assert_eq!(options.get_application_name(), Some("baton"));
    }
}
