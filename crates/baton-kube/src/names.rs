//! Kubernetes object names: which lease names can be Lease objects, and the names baton keeps
//! for itself.

use baton_core::echo::quoted;
use baton_core::{Error, LeaseName, Result};

/// The Lease object holding the namespace's token counter; never a baton lease.
pub(crate) const TOKENS_OBJECT: &str = "baton-fencing-tokens";

/// The longest object name Kubernetes accepts (a DNS subdomain).
const MAX_SUBDOMAIN: usize = 253;

/// The longest namespace name Kubernetes accepts (a DNS label).
const MAX_LABEL: usize = 63;

/// Whether `text` is one DNS-1123 label: lowercase letters, digits and '-', starting and ending
/// with a letter or digit.
fn is_label(text: &str) -> bool {
    let alphanumeric = |c: u8| c.is_ascii_lowercase() || c.is_ascii_digit();
    let bytes = text.as_bytes();
    !bytes.is_empty()
        && alphanumeric(bytes[0])
        && alphanumeric(bytes[bytes.len() - 1])
        && bytes.iter().all(|&c| alphanumeric(c) || c == b'-')
}

/// Checks that a lease can be a Lease object: a DNS subdomain (labels joined by '.', at most
/// 253 characters) and not the name of the token counter.
pub(crate) fn object_name(name: &LeaseName) -> Result<&str> {
    let text = name.as_str();
    if text.len() > MAX_SUBDOMAIN || !text.split('.').all(is_label) {
        return Err(Error::invalid_input(format!(
            "lease name {} is not a valid Kubernetes object name: expected a DNS subdomain \
             (lowercase letters, digits, '-' and '.', starting and ending with a letter or \
             digit, at most {MAX_SUBDOMAIN} characters)",
            quoted(text)
        )));
    }
    if text == TOKENS_OBJECT {
        return Err(Error::invalid_input(format!(
            "lease name {} is reserved: it holds the namespace's fencing-token counter",
            quoted(text)
        )));
    }
    Ok(text)
}

/// Checks a namespace name: a DNS label of at most 63 characters.
pub(crate) fn namespace(text: &str) -> std::result::Result<&str, String> {
    match text.len() <= MAX_LABEL && is_label(text) {
        true => Ok(text),
        false => Err(format!(
            "namespace {} is not a valid Kubernetes namespace (lowercase letters, digits and \
             '-', starting and ending with a letter or digit, at most {MAX_LABEL} characters)",
            quoted(text)
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lease(text: &str) -> LeaseName {
        LeaseName::new(text).unwrap()
    }

    #[test]
    fn dns_subdomains_are_object_names() {
        for good in ["settlement", "a", "billing.nightly-run", "0-9"] {
            assert_eq!(object_name(&lease(good)).unwrap(), good);
        }
        for bad in ["Settlement", "-a", "a-", "a..b", "a_b", "정산", ".a", TOKENS_OBJECT] {
            let err = object_name(&lease(bad)).expect_err(bad);
            assert!(err.to_string().contains(bad), "{err}");
        }
        assert!(object_name(&lease(&"a".repeat(200))).is_ok(), "labels of a name are not bounded");
    }

    #[test]
    fn namespaces_are_dns_labels() {
        assert!(namespace("kube-system").is_ok());
        for bad in ["", "Default", "a.b", &"a".repeat(64)] {
            assert!(namespace(bad).is_err(), "{bad}");
        }
    }
}
