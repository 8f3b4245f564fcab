//! Validated names for leases and holders.

use crate::name::validated_name;

pub use crate::name::MAX_NAME_BYTES;

validated_name!(
    /// The name of a lease: 1 to 200 bytes of printable characters without spaces.
    LeaseName,
    "lease name"
);

validated_name!(
    /// Who holds a lease: unique per process incarnation (for example host, pid and a random
    /// suffix), so that a restarted process is never mistaken for its previous life.
    HolderId,
    "holder id"
);

impl HolderId {
    /// A fresh holder id for this process: host name, process id and a random suffix.
    pub fn generate(host: &str, random: u32) -> Self {
        let host: String =
            host.chars().filter(|c| !c.is_control() && !c.is_whitespace()).take(100).collect();
        let host = if host.is_empty() { "node".to_string() } else { host };
        HolderId(format!("{host}-{}-{random:08x}", std::process::id()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_printable_names_up_to_the_limit() {
        assert!(LeaseName::new("settlement").is_ok());
        assert!(LeaseName::new("a".repeat(MAX_NAME_BYTES)).is_ok());
        assert!(LeaseName::new("정산/매일").is_ok());
    }

    #[test]
    fn rejects_empty_long_and_unprintable_names() {
        for bad in ["", "has space", "tab\there", "bell\u{7}"] {
            let err = LeaseName::new(bad).unwrap_err();
            assert_eq!(err.kind(), crate::ErrorKind::InvalidInput, "{bad:?}");
        }
        let err = LeaseName::new("a".repeat(MAX_NAME_BYTES + 1)).unwrap_err();
        assert!(err.to_string().contains("1 to 200 bytes"), "{err}");
    }

    #[test]
    fn generated_holder_ids_are_valid() {
        let id = HolderId::generate("my host\n", 7);
        assert!(HolderId::new(id.as_str()).is_ok());
        assert!(id.as_str().starts_with("myhost-"));
    }
}
