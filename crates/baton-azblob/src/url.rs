//! The store's URL,
//! `azblob://ACCOUNT/CONTAINER[?endpoint=URL&key_file=PATH&timeout=DURATION&ca=PATH]`, and the
//! account key, which never travels in the URL: read from the file `key_file` names (a mounted
//! secret), else `AZURE_STORAGE_KEY`, else the `AccountKey` of `AZURE_STORAGE_CONNECTION_STRING`.
//! An `https://` endpoint is reached over TLS, its certificate checked against the CAs of the
//! file `ca` names, else the public CAs built in.

use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use baton_core::echo::quoted;
use baton_core::time::parse_duration;
use baton_core::tls::{HostCheck, TlsOptions, TlsVocabulary};
use baton_core::url::{percent_decode, redact};
use baton_core::{Error, Result};
use baton_http::tls::{Tls, client_config, server_name};

/// The environment variable holding the account key (base64, as the portal shows it).
pub const KEY_VARIABLE: &str = "AZURE_STORAGE_KEY";
/// The environment variable holding a connection string, read when [`KEY_VARIABLE`] is unset.
pub const CONNECTION_STRING_VARIABLE: &str = "AZURE_STORAGE_CONNECTION_STRING";
/// How long one request may take by default before its outcome counts as unknown.
pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(5);

const FORM: &str =
    "azblob://ACCOUNT/CONTAINER[?endpoint=URL&key_file=PATH&timeout=DURATION&ca=PATH]";

/// How the URL takes the CA file for an `https://` endpoint.
const TLS_OPTIONS: TlsOptions = TlsOptions {
    schemes: "an https:// endpoint",
    default_roots: "the public CAs built in (Mozilla's list)",
};

/// How TLS failures name the URL's settings: the host name is always checked.
const TLS_VOCABULARY: TlsVocabulary =
    TlsVocabulary { ca: "ca=", host_check: HostCheck::Always { scheme: "an https:// endpoint" } };

/// How the URL reaches a service without TLS, for a TLS failure against one.
const PLAIN: &str = "name an http:// endpoint for one";

/// Where the blob service of an account answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Endpoint {
    /// The host name or address, as the `Host` header gives it.
    pub(crate) host: String,
    /// The TCP port.
    pub(crate) port: u16,
    /// The path before the container, empty for Azure, `/ACCOUNT` for Azurite.
    pub(crate) base_path: String,
    /// Whether it is reached over TLS (`https://`).
    pub(crate) tls: bool,
}

impl Endpoint {
    /// The endpoint as written, for messages.
    pub(crate) fn display(&self) -> String {
        let scheme = if self.tls { "https" } else { "http" };
        format!("{scheme}://{}:{}{}", self.host, self.port, self.base_path)
    }

    /// Its `host:port`, the host of an IPv6 address in brackets.
    pub(crate) fn address(&self) -> String {
        format!("{}:{}", self.host, self.port)
    }
}

/// Everything the URL and the environment name: account, key, container, endpoint, timeout,
/// and the TLS settings of an `https://` endpoint.
#[derive(Clone)]
pub(crate) struct Target {
    pub(crate) account: String,
    pub(crate) key: Vec<u8>,
    pub(crate) container: String,
    pub(crate) endpoint: Endpoint,
    pub(crate) timeout: Duration,
    pub(crate) tls: Option<Tls>,
}

impl std::fmt::Debug for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Target")
            .field("account", &self.account)
            .field("key", &"***")
            .field("container", &self.container)
            .field("endpoint", &self.endpoint.display())
            .finish()
    }
}

/// A one-line refusal naming the URL without its query (whose values are never echoed, so that
/// a key pasted there by mistake is not printed).
fn bad_url(url: &str, why: &str) -> Error {
    let without_query = url.split_once('?').map_or(url, |(base, _)| base);
    Error::invalid_input(format!(
        "invalid Azure blob URL {}: {why}; expected {FORM}",
        quoted(&redact(without_query))
    ))
}

/// Parses the URL and reads the key from the environment.
pub(crate) fn parse(url: &str) -> Result<Target> {
    let key = std::env::var(KEY_VARIABLE).ok().filter(|key| !key.is_empty());
    let connection = std::env::var(CONNECTION_STRING_VARIABLE).ok().filter(|text| !text.is_empty());
    parse_with(url, key.as_deref(), connection.as_deref())
}

/// Parses the URL with the key and connection string given (as the environment holds them).
pub(crate) fn parse_with(url: &str, key: Option<&str>, connection: Option<&str>) -> Result<Target> {
    let rest =
        url.strip_prefix("azblob://").ok_or_else(|| bad_url(url, "the scheme must be azblob"))?;
    let (path, query) = rest.split_once('?').unwrap_or((rest, ""));
    let (account, container) = path
        .trim_end_matches('/')
        .split_once('/')
        .ok_or_else(|| bad_url(url, "it names no container"))?;
    check_account(url, account)?;
    check_container(url, container)?;
    let mut endpoint = None;
    let mut key_file = None;
    let mut ca = None;
    let mut timeout = DEFAULT_REQUEST_TIMEOUT;
    for param in query.split('&').filter(|param| !param.is_empty()) {
        let (name, value) = param.split_once('=').unwrap_or((param, ""));
        let value = percent_decode(value)
            .ok_or_else(|| bad_url(url, &format!("{name} is not percent-encoded")))?;
        match name {
            "endpoint" => endpoint = Some(parse_endpoint(url, &value)?),
            "timeout" => timeout = parse_duration(&value)?,
            "key_file" => key_file = Some(read_key_file(&value)?),
            "ca" => ca = Some(param),
            _ => {
                return Err(bad_url(
                    url,
                    &format!(
                        "unknown parameter {}: expected endpoint, key_file, timeout or ca (the key comes from key_file, {KEY_VARIABLE} or {CONNECTION_STRING_VARIABLE}, never from the URL)",
                        quoted(name)
                    ),
                ));
            }
        }
    }
    let from_connection =
        connection.map(|text| ConnectionString::parse(text, account)).transpose()?;
    let key_source = match (&key_file, key) {
        (Some(_), _) => "the key file",
        (None, Some(_)) => KEY_VARIABLE,
        (None, None) => CONNECTION_STRING_VARIABLE,
    };
    let key_text = match (key_file.or(key.map(str::to_string)), &from_connection) {
        (Some(key), _) => key,
        (None, Some(parsed)) => parsed.key.clone(),
        (None, None) => {
            return Err(Error::invalid_input(format!(
                "no key for Azure storage account {account}: name a file holding it with key_file=PATH, or set {KEY_VARIABLE} or {CONNECTION_STRING_VARIABLE}"
            )));
        }
    };
    let key = BASE64.decode(key_text.trim()).map_err(|_| {
        Error::invalid_input(format!(
            "the account key in {key_source} is not base64: expected the key as the portal shows it"
        ))
    })?;
    let endpoint = match (endpoint, from_connection.and_then(|parsed| parsed.endpoint)) {
        (Some(endpoint), _) => endpoint,
        (None, Some(endpoint)) => parse_endpoint(url, &endpoint)?,
        (None, None) => parse_endpoint(url, &format!("https://{account}.blob.core.windows.net"))?,
    };
    let tls = tls(ca, &endpoint).map_err(|why| bad_url(url, &why))?;
    Ok(Target {
        account: account.to_string(),
        key,
        container: container.to_string(),
        endpoint,
        timeout,
        tls,
    })
}

/// The TLS settings of an `https://` endpoint, trusting the CAs of the `ca=PATH` parameter if
/// given; `None` for an `http://` endpoint, which takes no `ca`.
fn tls(ca: Option<&str>, endpoint: &Endpoint) -> std::result::Result<Option<Tls>, String> {
    let Some(files) = TLS_OPTIONS.read(ca, endpoint.tls).map_err(|err| err.to_string())? else {
        return Ok(None);
    };
    server_name(&endpoint.address())?;
    Ok(Some(Tls::new(client_config(&files)?, TLS_VOCABULARY, PLAIN)))
}

/// The key held in the file at `path`.
fn read_key_file(path: &str) -> Result<String> {
    std::fs::read_to_string(path).map(|key| key.trim().to_string()).map_err(|err| {
        Error::invalid_input(format!("cannot read the account key file {}: {err}", quoted(path)))
    })
}

/// Account names: 3 to 24 lowercase letters and digits.
fn check_account(url: &str, account: &str) -> Result<()> {
    let valid = (3..=24).contains(&account.len())
        && account.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit());
    match valid {
        true => Ok(()),
        false => Err(bad_url(
            url,
            &format!("account {} must be 3 to 24 lowercase letters and digits", quoted(account)),
        )),
    }
}

/// Container names: 3 to 63 lowercase letters, digits and single hyphens, starting and ending
/// with a letter or digit.
fn check_container(url: &str, container: &str) -> Result<()> {
    let bytes = container.as_bytes();
    let valid = (3..=63).contains(&bytes.len())
        && bytes.iter().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'-')
        && bytes.first() != Some(&b'-')
        && bytes.last() != Some(&b'-')
        && !container.contains("--");
    match valid {
        true => Ok(()),
        false => Err(bad_url(
            url,
            &format!(
                "container {} must be 3 to 63 lowercase letters, digits and single hyphens, starting and ending with a letter or digit",
                quoted(container)
            ),
        )),
    }
}

/// Parses `http[s]://HOST[:PORT][/PATH]`, the account's blob endpoint.
fn parse_endpoint(url: &str, text: &str) -> Result<Endpoint> {
    let invalid = |why: &str| bad_url(url, &format!("endpoint {} {why}", quoted(&redact(text))));
    let (tls, rest) = match text.split_once("://") {
        Some(("http", rest)) => (false, rest),
        Some(("https", rest)) => (true, rest),
        _ => return Err(invalid("must start with http:// or https://")),
    };
    let (authority, path) = match rest.find('/') {
        Some(at) => (&rest[..at], rest[at..].trim_end_matches('/')),
        None => (rest, ""),
    };
    let (host, port) = match authority.rsplit_once(':') {
        Some((host, port)) if !host.ends_with(']') || authority.starts_with('[') => {
            (host, port.parse::<u16>().map_err(|_| invalid("has an invalid port"))?)
        }
        _ => (authority, if tls { 443 } else { 80 }),
    };
    if host.is_empty() || host.contains('@') || path.contains(['?', '#']) {
        return Err(invalid("must be http[s]://HOST[:PORT][/PATH]"));
    }
    Ok(Endpoint { host: host.to_string(), port, base_path: path.to_string(), tls })
}

/// The parts of a connection string baton reads.
struct ConnectionString {
    key: String,
    endpoint: Option<String>,
}

impl ConnectionString {
    /// Reads `AccountName`, `AccountKey` and `BlobEndpoint` (or `DefaultEndpointsProtocol` and
    /// `EndpointSuffix`); the account must be the URL's.
    fn parse(text: &str, account: &str) -> Result<ConnectionString> {
        let field = |name: &str| {
            text.split(';').find_map(|part| {
                let (key, value) = part.split_once('=')?;
                key.trim().eq_ignore_ascii_case(name).then(|| value.trim().to_string())
            })
        };
        let invalid =
            |why: String| Error::invalid_input(format!("{CONNECTION_STRING_VARIABLE} {why}"));
        let Some(key) = field("AccountKey") else {
            return Err(invalid(
                "has no AccountKey: expected AccountName=…;AccountKey=…[;BlobEndpoint=…]".into(),
            ));
        };
        match field("AccountName") {
            Some(name) if name == account => {}
            Some(name) => {
                return Err(invalid(format!(
                    "is for account {}, not {account} of the URL",
                    quoted(&name)
                )));
            }
            None => return Err(invalid("has no AccountName".into())),
        }
        let endpoint = field("BlobEndpoint").or_else(|| {
            let suffix = field("EndpointSuffix")?;
            let protocol = field("DefaultEndpointsProtocol").unwrap_or_else(|| "https".into());
            Some(format!("{protocol}://{account}.blob.{suffix}"))
        });
        Ok(ConnectionString { key, endpoint })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "a2V5";

    #[test]
    fn reads_account_container_endpoint_and_timeout() {
        let url = "azblob://devstoreaccount1/leases?endpoint=http://127.0.0.1:10000/devstoreaccount1&timeout=2s";
        let target = parse_with(url, Some(KEY), None).unwrap();
        assert_eq!(target.account, "devstoreaccount1");
        assert_eq!(target.container, "leases");
        assert_eq!(target.key, b"key");
        assert_eq!(target.endpoint.display(), "http://127.0.0.1:10000/devstoreaccount1");
        assert_eq!(target.timeout, Duration::from_secs(2));
    }

    #[test]
    fn defaults_to_the_public_endpoint_or_the_connection_strings() {
        let target = parse_with("azblob://acct/leases", Some(KEY), None).unwrap();
        assert_eq!(target.endpoint.display(), "https://acct.blob.core.windows.net:443");
        assert_eq!(target.endpoint.address(), "acct.blob.core.windows.net:443");
        assert!(target.tls.is_some(), "the public CAs built in are trusted");
        let connection = "AccountName=acct;AccountKey=a2V5;BlobEndpoint=http://127.0.0.1:9/acct";
        let target = parse_with("azblob://acct/leases", None, Some(connection)).unwrap();
        assert_eq!(target.endpoint.display(), "http://127.0.0.1:9/acct");
        assert_eq!(target.key, b"key");
    }

    #[test]
    fn refuses_bad_input_with_one_line_and_no_secret() {
        let cases = [
            ("azblob://acct", Some(KEY), "names no container"),
            ("azblob://Acct/leases", Some(KEY), "account"),
            ("azblob://acct/Bad_Container", Some(KEY), "container"),
            ("azblob://acct/leases?key=c2VjcmV0", Some(KEY), "never from the URL"),
            ("azblob://acct/leases?endpoint=ftp://x", Some(KEY), "http:// or https://"),
            (
                "azblob://acct/leases?endpoint=http://127.0.0.1:9/acct&ca=/ca.pem",
                Some(KEY),
                "ca= needs TLS: use an https:// endpoint",
            ),
            ("azblob://acct/leases?ca=/nonexistent/ca.pem", Some(KEY), "cannot read ca="),
            ("azblob://acct/leases?ca=", Some(KEY), "ca= needs a path"),
            ("azblob://acct/leases?endpoint=https://bad_host!/acct", Some(KEY), "\"bad_host!\""),
            ("azblob://acct/leases", None, "AZURE_STORAGE_KEY"),
            ("azblob://acct/leases", Some("not base64!"), "not base64"),
        ];
        for (url, key, expected) in cases {
            let err = parse_with(url, key, None).unwrap_err();
            let message = err.to_string();
            assert!(message.contains(expected), "{url}: {message}");
            assert!(!message.contains('\n') && !message.contains("c2VjcmV0"), "{message}");
        }
        let err =
            parse_with("azblob://acct/leases", None, Some("AccountName=other;AccountKey=a2V5"))
                .unwrap_err();
        assert!(err.to_string().contains("not acct"), "{err}");
        let err =
            parse_with("azblob://acct/leases?key_file=/nonexistent/key", None, None).unwrap_err();
        assert!(err.to_string().contains("cannot read the account key file"), "{err}");
    }

    #[test]
    fn a_key_file_comes_before_the_environment() {
        let dir = std::env::temp_dir().join(format!("baton-azblob-key-{}", std::process::id()));
        std::fs::write(&dir, "a2V5Zg==\n").unwrap();
        let url = format!(
            "azblob://acct/leases?endpoint=http://127.0.0.1:9/acct&key_file={}",
            dir.display()
        );
        let target = parse_with(&url, Some(KEY), None).unwrap();
        std::fs::remove_file(&dir).unwrap();
        assert_eq!(target.key, b"keyf");
    }
}
