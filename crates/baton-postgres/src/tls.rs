//! TLS to PostgreSQL: the URL's `sslmode`, `sslrootcert`, `sslcert` and `sslkey`, checked before
//! connecting, and handshake failures explained on one line.

use baton_core::tls::{HostCheck, TlsVocabulary, key_pair};
use sqlx::postgres::{PgConnectOptions, PgSslMode};
use url::Url;

/// The `sslmode` values accepted, for messages.
const MODES: &str = "disable, prefer, require, verify-ca or verify-full";
/// The TLS parameters understood, for messages.
const PARAMETERS: &str = "sslmode, sslrootcert, sslcert and sslkey";
/// How handshake failures name the parameters.
const VOCABULARY: TlsVocabulary = TlsVocabulary {
    ca: "sslrootcert",
    host_check: HostCheck::Optional { verify_host: "sslmode=verify-full", verify_ca: "verify-ca" },
};

/// The TLS parameters of a URL, checked.
#[derive(Debug, Default)]
pub(crate) struct TlsParams {
    mode: Option<PgSslMode>,
    root_cert: bool,
}

impl TlsParams {
    /// Reads and checks the TLS parameters of `url`: a known `sslmode`, certificate and key
    /// files that can be read, `sslcert` and `sslkey` together, no other `ssl…` parameter.
    /// The error is one line naming the parameter (never a value that could be a secret).
    pub(crate) fn read(url: &Url) -> Result<TlsParams, String> {
        let mut params = TlsParams::default();
        let (mut cert, mut key) = (false, false);
        for (name, value) in url.query_pairs() {
            match &*name {
                "sslmode" | "ssl-mode" => params.mode = Some(mode(&value)?),
                "sslrootcert" | "ssl-root-cert" | "ssl-ca" => {
                    readable("sslrootcert", &value)?;
                    params.root_cert = true;
                }
                "sslcert" | "ssl-cert" => {
                    readable("sslcert", &value)?;
                    cert = true;
                }
                "sslkey" | "ssl-key" => {
                    readable("sslkey", &value)?;
                    key = true;
                }
                other if other.starts_with("ssl") => {
                    return Err(format!(
                        "unsupported TLS parameter {other:?}: baton understands {PARAMETERS}"
                    ));
                }
                _ => {}
            }
        }
        key_pair(("sslcert", cert), ("sslkey", key))?;
        Ok(params)
    }

    /// Applies what sqlx does not: as in libpq, `sslmode=require` with an `sslrootcert` checks
    /// the server's certificate against it (as `verify-ca` does).
    pub(crate) fn apply(&self, options: PgConnectOptions) -> PgConnectOptions {
        match self.mode {
            Some(PgSslMode::Require) if self.root_cert => options.ssl_mode(PgSslMode::VerifyCa),
            _ => options,
        }
    }
}

fn mode(value: &str) -> Result<PgSslMode, String> {
    match value {
        "disable" => Ok(PgSslMode::Disable),
        "prefer" => Ok(PgSslMode::Prefer),
        "require" => Ok(PgSslMode::Require),
        "verify-ca" => Ok(PgSslMode::VerifyCa),
        "verify-full" => Ok(PgSslMode::VerifyFull),
        "allow" => Err(format!("sslmode \"allow\" is not supported: use {MODES}")),
        other => Err(format!("sslmode {other:?} is not one of {MODES}")),
    }
}

/// Checks that a certificate or key file can be read (a PEM text given inline is left as is).
fn readable(parameter: &str, value: &str) -> Result<(), String> {
    if value.trim_start().starts_with("-----BEGIN") {
        return Ok(());
    }
    baton_core::tls::readable(parameter, value)
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

    fn read(query: &str) -> Result<TlsParams, String> {
        TlsParams::read(&Url::parse(&format!("postgres://u@db/x?{query}")).unwrap())
    }

    #[test]
    fn accepts_every_mode_libpq_names_but_allow() {
        for mode in ["disable", "prefer", "require", "verify-ca", "verify-full"] {
            assert!(read(&format!("sslmode={mode}")).is_ok(), "{mode}");
        }
        let err = read("sslmode=allow").err().unwrap();
        assert_eq!(
            err,
            "sslmode \"allow\" is not supported: use disable, prefer, require, verify-ca or \
             verify-full"
        );
        let err = read("sslmode=strict").err().unwrap();
        assert!(err.starts_with("sslmode \"strict\" is not one of disable, prefer"), "{err}");
    }

    #[test]
    fn refuses_unreadable_files_half_a_key_pair_and_unknown_parameters() {
        let err = read("sslrootcert=/nonexistent/ca.pem").err().unwrap();
        assert!(err.starts_with("sslrootcert \"/nonexistent/ca.pem\" cannot be read: "), "{err}");
        let file = tempfile::NamedTempFile::new().unwrap();
        let path = file.path().display();
        assert_eq!(
            read(&format!("sslcert={path}")).err().unwrap(),
            "sslcert and sslkey go together: give both, or neither"
        );
        assert!(read(&format!("sslcert={path}&sslkey={path}&sslrootcert={path}")).is_ok());
        let err = read("sslpassword=hunter2").err().unwrap();
        assert_eq!(
            err,
            "unsupported TLS parameter \"sslpassword\": baton understands sslmode, sslrootcert, \
             sslcert and sslkey"
        );
    }

    #[test]
    fn require_with_a_root_certificate_verifies_the_ca() {
        let file = tempfile::NamedTempFile::new().unwrap();
        let path = file.path().display();
        // As sqlx parsed the URL.
        let options = PgConnectOptions::new().ssl_mode(PgSslMode::Require);
        let params = read(&format!("sslmode=require&sslrootcert={path}")).unwrap();
        assert!(matches!(params.apply(options.clone()).get_ssl_mode(), PgSslMode::VerifyCa));
        let params = read("sslmode=require").unwrap();
        assert!(matches!(params.apply(options).get_ssl_mode(), PgSslMode::Require));
    }
}
