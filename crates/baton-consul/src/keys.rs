//! Where a lease's key lives: `<prefix>/leases/<name>`.

use baton_core::{Error, ErrorKind, LeaseName, Result};

/// The folder of every lease key under `prefix`, with its trailing slash.
pub(crate) fn folder(prefix: &str) -> String {
    format!("{prefix}/leases/")
}

/// The key of lease `name` under `prefix`.
pub(crate) fn lease_key(prefix: &str, name: &LeaseName) -> String {
    format!("{}{name}", folder(prefix))
}

/// The lease whose key is `key` under `prefix`.
pub(crate) fn lease_name(prefix: &str, key: &str) -> Result<LeaseName> {
    let name = key.strip_prefix(&folder(prefix)).unwrap_or(key);
    LeaseName::new(name).map_err(|_| {
        Error::new(
            ErrorKind::Internal,
            format!("key {key:?} under {prefix}/leases/ names no lease"),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lease_key_maps_back_to_its_name() {
        let name = LeaseName::new("jobs/nightly").unwrap();
        let key = lease_key("baton", &name);
        assert_eq!(key, "baton/leases/jobs/nightly");
        assert_eq!(lease_name("baton", &key).unwrap(), name);
    }
}
