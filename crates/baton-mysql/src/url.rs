//! Parsing a `mysql://` or `mariadb://` URL into connection options, and describing it
//! without secrets.

use baton_core::url::{redact, single_line};
use baton_core::{Error, Result};
use sqlx::mysql::MySqlConnectOptions;

/// The schemes accepted; `mariadb://` is read as `mysql://`.
const SCHEMES: [&str; 2] = ["mysql://", "mariadb://"];
const EXPECTED: &str = "expected mysql://user:password@host:port/database";

/// Parses a `mysql://` or `mariadb://` URL, which must name a database. Messages show the URL
/// with its password masked.
pub(crate) fn parse(url: &str) -> Result<MySqlConnectOptions> {
    let invalid = |cause: String| {
        Error::invalid_input(format!("invalid MySQL URL {:?}: {cause}({EXPECTED})", redact(url)))
    };
    let Some(rest) = SCHEMES.iter().find_map(|scheme| url.strip_prefix(scheme)) else {
        return Err(invalid(String::new()));
    };
    let options = format!("mysql://{rest}").parse::<MySqlConnectOptions>().map_err(|err| {
        let cause = match err {
            sqlx::Error::Configuration(cause) => cause.to_string(),
            other => other.to_string(),
        };
        invalid(format!("{} ", single_line(&cause)))
    })?;
    if options.get_database().is_none_or(str::is_empty) {
        return Err(invalid("it names no database ".to_string()));
    }
    Ok(options)
}

/// Where the options point, as `host:port` or the socket path, for messages.
pub(crate) fn endpoint(options: &MySqlConnectOptions) -> String {
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
        let err = parse("postgres://app:hunter2@db/x").unwrap_err();
        assert_eq!(err.kind(), baton_core::ErrorKind::InvalidInput);
        assert!(!err.to_string().contains("hunter2"), "{err}");
        assert!(err.to_string().contains("expected mysql://"), "{err}");
    }

    #[test]
    fn a_database_is_required() {
        for url in ["mysql://app:hunter2@db:3306", "mysql://app:hunter2@db:3306/"] {
            let err = parse(url).unwrap_err();
            assert!(err.to_string().contains("names no database"), "{err}");
            assert!(!err.to_string().contains("hunter2"), "{err}");
        }
    }

    #[test]
    fn reads_mariadb_urls_and_names_host_and_port() {
        let options = parse("mariadb://app:pw@10.0.0.7:3307/jobs").unwrap();
        assert_eq!(endpoint(&options), "10.0.0.7:3307");
        assert_eq!(options.get_database(), Some("jobs"));
    }
}
