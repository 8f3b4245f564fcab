//! Parsing a `postgres://` URL into connection options, and describing it without secrets.

use baton_core::{Error, Result};
use sqlx::postgres::PgConnectOptions;

const SCHEMES: [&str; 2] = ["postgres://", "postgresql://"];
const EXPECTED: &str = "expected postgres://user:password@host:port/database";

/// Parses a `postgres://` or `postgresql://` URL. Messages show the URL with its password
/// masked.
pub(crate) fn parse(url: &str) -> Result<PgConnectOptions> {
    if !SCHEMES.iter().any(|scheme| url.starts_with(scheme)) {
        return Err(Error::invalid_input(format!(
            "invalid PostgreSQL URL {:?}: {EXPECTED}",
            redact(url)
        )));
    }
    let options = url.parse::<PgConnectOptions>().map_err(|err| {
        let cause = match err {
            sqlx::Error::Configuration(cause) => cause.to_string(),
            other => other.to_string(),
        };
        Error::invalid_input(format!(
            "invalid PostgreSQL URL {:?}: {} ({EXPECTED})",
            redact(url),
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

/// The URL with the password of its user-info part replaced by `***`.
pub(crate) fn redact(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let authority_end = rest.find(['/', '?']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(authority_end);
    let Some((user_info, host)) = authority.rsplit_once('@') else {
        return url.to_string();
    };
    match user_info.split_once(':') {
        Some((user, _password)) => format!("{scheme}://{user}:***@{host}{tail}"),
        None => url.to_string(),
    }
}

/// Collapses a multi-line message onto one line.
pub(crate) fn single_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_the_password_only() {
        assert_eq!(redact("postgres://app:s3cr@t@db:5432/x"), "postgres://app:***@db:5432/x");
        assert_eq!(redact("postgres://app@db/x"), "postgres://app@db/x");
        assert_eq!(redact("postgresql://db:5432"), "postgresql://db:5432");
        assert_eq!(
            redact("postgres://u:p@h?sslmode=disable"),
            "postgres://u:***@h?sslmode=disable"
        );
    }

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
