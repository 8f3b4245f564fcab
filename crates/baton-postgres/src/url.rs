//! Parsing a `postgres://` URL into connection options, and describing it without secrets.

use baton_core::echo::quoted;
use baton_core::url::{redact, single_line};
use baton_core::{Error, Result};
use sqlx::ConnectOptions;
use sqlx::postgres::PgConnectOptions;

use crate::tls::TlsParams;

const SCHEMES: [&str; 2] = ["postgres://", "postgresql://"];
const EXPECTED: &str = "expected postgres://user:password@host:port/database";

/// Parses a `postgres://` or `postgresql://` URL, with its TLS parameters checked and an IPv6
/// literal host (`[::1]`) unbracketed. Messages show the URL with its password masked.
pub(crate) fn parse(url: &str) -> Result<PgConnectOptions> {
    let invalid = |why: &str| {
        Error::invalid_input(format!(
            "invalid PostgreSQL URL {}: {}",
            quoted(&redact(url)),
            single_line(why)
        ))
    };
    if !SCHEMES.iter().any(|scheme| url.starts_with(scheme)) {
        return Err(invalid(EXPECTED));
    }
    let parsed = ::url::Url::parse(url).map_err(|err| invalid(&format!("{err} ({EXPECTED})")))?;
    let tls = TlsParams::read(&parsed).map_err(|why| invalid(&why))?;
    let options = PgConnectOptions::from_url(&parsed).map_err(|err| {
        let cause = match err {
            sqlx::Error::Configuration(cause) => cause.to_string(),
            other => other.to_string(),
        };
        invalid(&format!("{cause} ({EXPECTED})"))
    })?;
    let options = match parsed.host() {
        // sqlx would look the bracketed form up as a host name.
        Some(::url::Host::Ipv6(address)) => options.host(&address.to_string()),
        _ => options,
    };
    let options = tls.apply(options);
    Ok(match options.get_application_name() {
        Some(_) => options,
        None => options.application_name("baton"),
    })
}

/// Where the options point, as `host:port` (`[address]:port` for IPv6) or the socket path, for
/// messages.
pub(crate) fn endpoint(options: &PgConnectOptions) -> String {
    match (options.get_socket(), options.get_host()) {
        (Some(socket), _) => socket.display().to_string(),
        (None, host) if host.contains(':') => format!("[{host}]:{}", options.get_port()),
        (None, host) => format!("{host}:{}", options.get_port()),
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

    #[test]
    fn unbrackets_an_ipv6_literal_host() {
        let options = parse("postgres://app@[::1]:6543/db").unwrap();
        assert_eq!(options.get_host(), "::1");
        assert_eq!(endpoint(&options), "[::1]:6543");
    }

    #[test]
    fn refuses_bad_tls_parameters_in_one_line_without_the_password() {
        let err = parse("postgres://app:hunter2@db/x?sslmode=on").unwrap_err();
        assert_eq!(err.kind(), baton_core::ErrorKind::InvalidInput);
        assert_eq!(
            err.to_string(),
            "invalid PostgreSQL URL \"postgres://app:***@db/x?sslmode=on\": sslmode \"on\" is \
             not one of disable, prefer, require, verify-ca or verify-full"
        );
    }
}
