//! Validated node ids.

use crate::name::validated_name;

validated_name!(
    /// The id of a cluster node: 1 to 200 bytes of printable characters without spaces. A node
    /// that registers again under the same id becomes a new incarnation with a new token.
    NodeId,
    "node id"
);

/// The most bytes of the host name kept in a default node id.
const HOST_BYTES: usize = 100;

impl NodeId {
    /// The default id of a node: its host name and an incarnation number drawn at random when
    /// the process starts, such as `web-3-5f2a9c1e`. Control characters and whitespace are
    /// dropped from the host, which is cut to 100 bytes; an empty host becomes `node`.
    pub fn from_host(host: &str, incarnation: u32) -> Self {
        let mut kept = String::new();
        for c in host.chars().filter(|c| !c.is_control() && !c.is_whitespace()) {
            if kept.len() + c.len_utf8() > HOST_BYTES {
                break;
            }
            kept.push(c);
        }
        if kept.is_empty() {
            kept.push_str("node");
        }
        NodeId(format!("{kept}-{incarnation:08x}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorKind;
    use crate::name::MAX_NAME_BYTES;

    #[test]
    fn ids_from_a_host_are_valid_and_keep_the_incarnation() {
        let id = NodeId::from_host("web 3\n", 0x5f2a_9c1e);
        assert_eq!(id.as_str(), "web3-5f2a9c1e");
        assert_eq!(NodeId::from_host("", 1).as_str(), "node-00000001");
        let long = NodeId::from_host(&"정".repeat(200), 7);
        assert!(NodeId::new(long.as_str()).is_ok(), "{long}");
        assert!(long.as_str().ends_with("-00000007"));
    }

    #[test]
    fn rejects_empty_long_and_unprintable_ids_naming_the_value() {
        let too_long = "n".repeat(MAX_NAME_BYTES + 1);
        for bad in ["", "two words", too_long.as_str()] {
            let err = NodeId::new(bad).unwrap_err();
            assert_eq!(err.kind(), ErrorKind::InvalidInput);
            assert!(
                err.to_string()
                    .starts_with(&format!("invalid node id {}", crate::echo::quoted(bad))),
                "{err}"
            );
        }
        assert_eq!(NodeId::new("a".repeat(MAX_NAME_BYTES)).unwrap().as_str().len(), 200);
    }
}
