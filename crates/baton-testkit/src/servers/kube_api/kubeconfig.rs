//! The kubeconfigs clients reach the server with: over plain HTTP (kube's client), or over TLS
//! (kubectl, which sends credentials only over TLS).

use std::path::Path;

use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;

/// The context, cluster and user name.
const NAME: &str = "baton-test";

/// Writes at `path` a kubeconfig whose current context, `baton-test`, reaches `url` with the
/// bearer token `token`, in the namespace `default`; trusting the certificate `ca_pem` when
/// given (for an `https` URL).
pub(super) fn write(path: &Path, url: &str, token: &str, ca_pem: Option<&str>) {
    let ca = match ca_pem {
        Some(pem) => format!("    certificate-authority-data: {}\n", BASE64.encode(pem)),
        None => String::new(),
    };
    let text = format!(
        "apiVersion: v1\n\
         kind: Config\n\
         clusters:\n\
         - name: {NAME}\n  cluster:\n    server: {url}\n{ca}\
         users:\n\
         - name: {NAME}\n  user:\n    token: {token}\n\
         contexts:\n\
         - name: {NAME}\n  context:\n    cluster: {NAME}\n    user: {NAME}\n    namespace: default\n\
         current-context: {NAME}\n"
    );
    std::fs::write(path, text)
        .unwrap_or_else(|err| panic!("cannot write the kubeconfig {}: {err}", path.display()));
}
