//! Parsing a `mysql://` or `mariadb://` URL into connection options, with its query checked,
//! and describing it without secrets.

use baton_core::echo::quoted;
use baton_core::url::{redact, single_line};
use baton_core::{Error, Result};
use sqlx::ConnectOptions;
use sqlx::mysql::MySqlConnectOptions;

use crate::tls::{self, TlsParams};

/// The schemes accepted; `mariadb://` is read as `mysql://`.
const SCHEMES: [&str; 2] = ["mysql://", "mariadb://"];
const EXPECTED: &str = "expected mysql://user:password@host:port/database";
/// The query parameters understood besides the TLS ones: sqlx reads more (`charset`,
/// `timezone`, …) but those would change how baton's rows and times are read.
const OTHER_PARAMETERS: [&str; 1] = ["socket"];

/// Parses a `mysql://` or `mariadb://` URL, which must name a database, with its query
/// parameters checked (sqlx would ignore one it does not know, such as a misspelt `ssl-mode`).
/// Messages show the URL with its password masked.
pub(crate) fn parse(url: &str) -> Result<MySqlConnectOptions> {
    let invalid = |why: &str| {
        Error::invalid_input(format!(
            "invalid MySQL URL {}: {}",
            quoted(&redact(url)),
            single_line(why)
        ))
    };
    let Some(rest) = SCHEMES.iter().find_map(|scheme| url.strip_prefix(scheme)) else {
        return Err(invalid(EXPECTED));
    };
    let parsed = ::url::Url::parse(&format!("mysql://{rest}"))
        .map_err(|err| invalid(&format!("{err} ({EXPECTED})")))?;
    let tls = check_query(&parsed).map_err(|why| invalid(&why))?;
    let options = MySqlConnectOptions::from_url(&parsed).map_err(|err| {
        let cause = match err {
            sqlx::Error::Configuration(cause) => cause.to_string(),
            other => other.to_string(),
        };
        invalid(&format!("{cause} ({EXPECTED})"))
    })?;
    if options.get_database().is_none_or(str::is_empty) {
        return Err(invalid(&format!("it names no database ({EXPECTED})")));
    }
    Ok(tls.apply(options))
}

/// Checks every query parameter: each one understood and given once, the TLS ones valid.
/// The error is one line naming the parameter (never the value of an unknown one, which
/// could be a secret).
fn check_query(url: &::url::Url) -> std::result::Result<TlsParams, String> {
    let mut tls = TlsParams::default();
    let mut seen = Vec::new();
    for (name, value) in url.query_pairs() {
        if seen.contains(&name) {
            return Err(format!("parameter {} is given twice", quoted(&name)));
        }
        if !tls.take(&name, &value)? && !OTHER_PARAMETERS.contains(&&*name) {
            return Err(unsupported(&name));
        }
        seen.push(name);
    }
    tls.check()?;
    Ok(tls)
}

/// The refusal of parameter `name`, with the accepted spelling when it is one written with
/// other dashes, underscores or case (such as `ssl_mode` or `sslmode`).
fn unsupported(name: &str) -> String {
    let accepted: Vec<&str> = tls::PARAMETERS.iter().chain(&OTHER_PARAMETERS).copied().collect();
    let squashed = |name: &str| name.replace(['-', '_'], "").to_ascii_lowercase();
    let hint = match accepted.iter().find(|known| squashed(known) == squashed(name)) {
        Some(known) => format!(" (did you mean {known}?)"),
        None => String::new(),
    };
    format!("unsupported parameter {}{hint}: baton accepts {}", quoted(name), accepted.join(", "))
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

    #[test]
    fn refuses_a_misspelt_parameter_in_one_line_without_secrets() {
        let err = parse("mysql://app:hunter2@db/x?ssl_mode=REQUIRED").unwrap_err();
        assert_eq!(err.kind(), baton_core::ErrorKind::InvalidInput);
        assert_eq!(
            err.to_string(),
            "invalid MySQL URL \"mysql://app:***@db/x?ssl_mode=REQUIRED\": unsupported parameter \
             \"ssl_mode\" (did you mean ssl-mode?): baton accepts ssl-mode, ssl-ca, ssl-cert, \
             ssl-key, socket"
        );
        let err = parse("mysql://app@db/x?sslca=/etc/ca.pem").unwrap_err();
        assert!(err.to_string().contains("\"sslca\" (did you mean ssl-ca?)"), "{err}");
        let err = parse("mysql://app@db/x?password=hunter2").unwrap_err();
        assert!(err.to_string().contains("unsupported parameter \"password\": baton"), "{err}");
        assert!(!err.to_string().contains("hunter2"), "{err}");
        let err = parse("mysql://app@db/x?timezone=%2B02:00").unwrap_err();
        assert!(err.to_string().contains("unsupported parameter \"timezone\""), "{err}");
    }

    #[test]
    fn refuses_a_parameter_given_twice_and_a_bad_mode() {
        let err = parse("mysql://app@db/x?ssl-mode=DISABLED&ssl-mode=REQUIRED").unwrap_err();
        assert!(err.to_string().ends_with(": parameter \"ssl-mode\" is given twice"), "{err}");
        let err = parse("mariadb://app:hunter2@db/x?ssl-mode=verify-full").unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid MySQL URL \"mariadb://app:***@db/x?ssl-mode=verify-full\": ssl-mode \
             \"verify-full\" is PostgreSQL's name: use VERIFY_IDENTITY"
        );
    }

    #[test]
    fn passes_tls_settings_and_the_socket_on() {
        let file = tempfile::NamedTempFile::new().unwrap();
        let path = file.path().display().to_string();
        let options = parse(&format!("mysql://app@db/x?ssl-ca={path}")).unwrap();
        assert!(matches!(options.get_ssl_mode(), sqlx::mysql::MySqlSslMode::VerifyCa));
        let options = parse("mysql://app@db/x?ssl-mode=verify_identity").unwrap();
        assert!(matches!(options.get_ssl_mode(), sqlx::mysql::MySqlSslMode::VerifyIdentity));
        let options = parse("mysql://app@localhost/x?socket=/run/mysqld/mysqld.sock").unwrap();
        assert_eq!(endpoint(&options), "/run/mysqld/mysqld.sock");
    }
}
