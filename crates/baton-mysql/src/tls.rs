//! TLS to MySQL: the URL's `ssl-mode`, `ssl-ca`, `ssl-cert` and `ssl-key`, checked before
//! connecting, and handshake failures explained on one line.

use baton_core::echo::quoted;
use baton_core::tls::{HostCheck, TlsVocabulary, key_pair, readable};
use sqlx::mysql::{MySqlConnectOptions, MySqlSslMode};

/// The TLS parameters understood.
pub(crate) const PARAMETERS: [&str; 4] = ["ssl-mode", "ssl-ca", "ssl-cert", "ssl-key"];
/// The `ssl-mode` values accepted (in any case), for messages.
const MODES: &str = "DISABLED, PREFERRED, REQUIRED, VERIFY_CA or VERIFY_IDENTITY";
/// How handshake failures name the parameters.
const VOCABULARY: TlsVocabulary = TlsVocabulary {
    ca: "ssl-ca",
    host_check: HostCheck::Optional {
        verify_host: "ssl-mode=VERIFY_IDENTITY",
        verify_ca: "VERIFY_CA",
    },
};

/// The TLS parameters of a URL, checked.
#[derive(Debug, Default)]
pub(crate) struct TlsParams {
    mode: Option<MySqlSslMode>,
    ca: bool,
    cert: bool,
    key: bool,
}

impl TlsParams {
    /// Takes the parameter `name` if it is one of [`PARAMETERS`]: a known `ssl-mode`, or a
    /// certificate or key file that can be read. Answers whether it was one of them; the error
    /// is one line naming the parameter.
    pub(crate) fn take(&mut self, name: &str, value: &str) -> Result<bool, String> {
        match name {
            "ssl-mode" => self.mode = Some(mode(value)?),
            "ssl-ca" => {
                readable(name, value)?;
                self.ca = true;
            }
            "ssl-cert" => {
                readable(name, value)?;
                self.cert = true;
            }
            "ssl-key" => {
                readable(name, value)?;
                self.key = true;
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// Checks what only all the parameters together tell: `ssl-cert` and `ssl-key` go together.
    pub(crate) fn check(&self) -> Result<(), String> {
        key_pair(("ssl-cert", self.cert), ("ssl-key", self.key))
    }

    /// Applies what sqlx does not: an `ssl-ca` without `ssl-mode` verifies the server's
    /// certificate against it (as MySQL's own clients do), and so does one with
    /// `ssl-mode=REQUIRED` (where those clients only warn that they do not).
    pub(crate) fn apply(&self, options: MySqlConnectOptions) -> MySqlConnectOptions {
        match self.mode {
            None | Some(MySqlSslMode::Required) if self.ca => {
                options.ssl_mode(MySqlSslMode::VerifyCa)
            }
            _ => options,
        }
    }
}

/// An `ssl-mode` as MySQL's clients spell it, in any case. PostgreSQL's names are refused with
/// the MySQL name to use, so that a URL baton accepts works with every MySQL client too.
fn mode(value: &str) -> Result<MySqlSslMode, String> {
    let libpq =
        |mysql: &str| Err(format!("ssl-mode {} is PostgreSQL's name: use {mysql}", quoted(value)));
    match &*value.to_ascii_uppercase() {
        "DISABLED" => Ok(MySqlSslMode::Disabled),
        "PREFERRED" => Ok(MySqlSslMode::Preferred),
        "REQUIRED" => Ok(MySqlSslMode::Required),
        "VERIFY_CA" => Ok(MySqlSslMode::VerifyCa),
        "VERIFY_IDENTITY" => Ok(MySqlSslMode::VerifyIdentity),
        "DISABLE" => libpq("DISABLED"),
        "PREFER" => libpq("PREFERRED"),
        "REQUIRE" => libpq("REQUIRED"),
        "VERIFY-CA" => libpq("VERIFY_CA"),
        "VERIFY-FULL" => libpq("VERIFY_IDENTITY"),
        _ => Err(format!("ssl-mode {} is not one of {MODES}", quoted(value))),
    }
}

/// A TLS failure of `err` explained on one line, or `None` when `err` is not about TLS.
pub(crate) fn explain(err: &sqlx::Error) -> Option<String> {
    match err {
        sqlx::Error::Tls(inner) => {
            Some(VOCABULARY.explain(err).unwrap_or_else(|| format!("TLS: {inner}")))
        }
        sqlx::Error::Io(_) => VOCABULARY.explain(err),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn take(name: &str, value: &str) -> Result<bool, String> {
        TlsParams::default().take(name, value)
    }

    #[test]
    fn accepts_mysql_modes_in_any_case_and_names_the_mysql_spelling_of_libpq_modes() {
        for mode in ["DISABLED", "preferred", "Required", "verify_ca", "VERIFY_IDENTITY"] {
            assert_eq!(take("ssl-mode", mode), Ok(true), "{mode}");
        }
        assert_eq!(
            take("ssl-mode", "verify-full").unwrap_err(),
            "ssl-mode \"verify-full\" is PostgreSQL's name: use VERIFY_IDENTITY"
        );
        assert_eq!(
            take("ssl-mode", "require").unwrap_err(),
            "ssl-mode \"require\" is PostgreSQL's name: use REQUIRED"
        );
        assert_eq!(
            take("ssl-mode", "on").unwrap_err(),
            "ssl-mode \"on\" is not one of DISABLED, PREFERRED, REQUIRED, VERIFY_CA or \
             VERIFY_IDENTITY"
        );
        assert_eq!(take("socket", "/run/mysqld/mysqld.sock"), Ok(false));
    }

    #[test]
    fn refuses_unreadable_files_and_half_a_key_pair() {
        let err = take("ssl-ca", "/nonexistent/ca.pem").unwrap_err();
        assert!(err.starts_with("ssl-ca \"/nonexistent/ca.pem\" cannot be read: "), "{err}");
        let file = tempfile::NamedTempFile::new().unwrap();
        let path = file.path().display().to_string();
        let mut params = TlsParams::default();
        assert_eq!(params.take("ssl-cert", &path), Ok(true));
        assert_eq!(
            params.check().unwrap_err(),
            "ssl-cert and ssl-key go together: give both, or neither"
        );
        assert_eq!(params.take("ssl-key", &path), Ok(true));
        assert_eq!(params.check(), Ok(()));
    }

    #[test]
    fn a_ca_without_a_mode_or_with_required_verifies_the_server_certificate() {
        let file = tempfile::NamedTempFile::new().unwrap();
        let path = file.path().display().to_string();
        let verified = |modes: &[&str], ca: bool| {
            let mut params = TlsParams::default();
            for mode in modes {
                params.take("ssl-mode", mode).unwrap();
            }
            if ca {
                params.take("ssl-ca", &path).unwrap();
            }
            // As sqlx parsed the URL: its default is PREFERRED.
            let mode = params.mode.unwrap_or(MySqlSslMode::Preferred);
            params.apply(MySqlConnectOptions::new().ssl_mode(mode)).get_ssl_mode()
        };
        assert!(matches!(verified(&[], true), MySqlSslMode::VerifyCa));
        assert!(matches!(verified(&["REQUIRED"], true), MySqlSslMode::VerifyCa));
        assert!(matches!(verified(&["PREFERRED"], true), MySqlSslMode::Preferred));
        assert!(matches!(verified(&["VERIFY_IDENTITY"], true), MySqlSslMode::VerifyIdentity));
        assert!(matches!(verified(&["REQUIRED"], false), MySqlSslMode::Required));
        assert!(matches!(verified(&[], false), MySqlSslMode::Preferred));
    }
}
