//! Parsing `kube://[NAMESPACE][?kubeconfig=PATH&context=NAME&timeout=DURATION]`.

use std::path::PathBuf;
use std::time::Duration;

use baton_core::echo::quoted;
use baton_core::time::parse_duration;
use baton_core::url::percent_decode;
use baton_core::{Error, Result};

use crate::names;

/// The URL form, for error messages.
pub(crate) const FORM: &str = "kube://[NAMESPACE][?kubeconfig=PATH&context=NAME&timeout=DURATION]";

/// How long one request to the API server may take unless the URL says otherwise.
pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(5);

/// Where the leases live and how to reach the API server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Target {
    /// The namespace of the Lease objects; `None` for the credentials' own namespace.
    pub(crate) namespace: Option<String>,
    /// A kubeconfig file to read instead of the usual search (`KUBECONFIG`, `~/.kube/config`,
    /// then the in-cluster service account).
    pub(crate) kubeconfig: Option<PathBuf>,
    /// The kubeconfig context to use instead of its current one.
    pub(crate) context: Option<String>,
    /// How long one request may take before its outcome is judged unknown.
    pub(crate) timeout: Duration,
}

fn invalid(url: &str, why: &str) -> Error {
    Error::invalid_input(format!("invalid Kubernetes URL {}: {why}; expected {FORM}", quoted(url)))
}

/// Parses a `kube://` URL. It carries no secret: credentials come from the kubeconfig or the
/// service account.
pub(crate) fn parse(url: &str) -> Result<Target> {
    let rest =
        url.strip_prefix("kube://").ok_or_else(|| invalid(url, "the scheme must be kube"))?;
    let (namespace, query) = rest.split_once('?').unwrap_or((rest, ""));
    let namespace = match namespace.trim_end_matches('/') {
        "" => None,
        given => Some(names::namespace(given).map_err(|why| invalid(url, &why))?.to_string()),
    };
    let mut target =
        Target { namespace, kubeconfig: None, context: None, timeout: DEFAULT_REQUEST_TIMEOUT };
    for pair in query.split('&').filter(|pair| !pair.is_empty()) {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        let value = percent_decode(value)
            .filter(|value| !value.is_empty())
            .ok_or_else(|| invalid(url, &format!("parameter {key} needs a value")))?;
        match key {
            "kubeconfig" => target.kubeconfig = Some(PathBuf::from(value)),
            "context" => target.context = Some(value),
            "timeout" => {
                target.timeout = parse_duration(&value)
                    .ok()
                    .filter(|timeout| !timeout.is_zero())
                    .ok_or_else(|| {
                    invalid(
                        url,
                        &format!("timeout {} is not a duration such as 5s", quoted(&value)),
                    )
                })?;
            }
            other => {
                return Err(invalid(
                    url,
                    &format!(
                        "unknown parameter {}: accepted are kubeconfig, context and timeout",
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
    fn namespace_and_parameters_are_read() {
        let target =
            parse("kube://payments?kubeconfig=/etc/kube/config&context=prod&timeout=2s").unwrap();
        assert_eq!(target.namespace.as_deref(), Some("payments"));
        assert_eq!(target.kubeconfig, Some(PathBuf::from("/etc/kube/config")));
        assert_eq!(target.context.as_deref(), Some("prod"));
        assert_eq!(target.timeout, Duration::from_secs(2));
        let bare = parse("kube://").unwrap();
        assert_eq!((bare.namespace, bare.timeout), (None, DEFAULT_REQUEST_TIMEOUT));
    }

    #[test]
    fn malformed_urls_fail_in_one_line() {
        for (url, expected) in [
            ("k8s://default", "scheme must be kube"),
            ("kube://Default", "not a valid Kubernetes namespace"),
            ("kube://default?context=", "needs a value"),
            ("kube://default?timeout=soon", "not a duration"),
            ("kube://default?token=abc", "unknown parameter"),
        ] {
            let err = parse(url).expect_err(url).to_string();
            assert!(err.contains(expected) && err.contains(FORM) && !err.contains('\n'), "{err}");
        }
    }
}
