//! How a batch's partitions are spread over the live nodes.

use std::fmt;
use std::num::NonZeroU32;
use std::str::FromStr;

use crate::error::{Error, Result};

/// How partitions are assigned to nodes when a batch is created; see
/// [`assign`](super::assign) for the exact rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Strategy {
    /// Partition after partition, node after node, in node id order. Named `round-robin`.
    RoundRobin,
    /// Round-robin over the `k` least-loaded live nodes, or over every live node when fewer
    /// are alive. Named `fixed-node-count(k)`.
    FixedNodeCount(NonZeroU32),
    /// Each partition to the node with the least load, counting the partitions given so far.
    /// Named `least-loaded`.
    LeastLoaded,
    /// No assignment: any live node claims any partition. Named `free-for-all`.
    FreeForAll,
    /// Round-robin at the start, then the pending partitions are spread evenly again over
    /// every live node whenever one has none left, so that nodes joining while the batch runs
    /// take their share (see [`plan_moves`](super::plan_moves)). Named `scale-up`.
    ScaleUp,
}

impl fmt::Display for Strategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Strategy::RoundRobin => f.pad("round-robin"),
            Strategy::FixedNodeCount(k) => f.pad(&format!("fixed-node-count({k})")),
            Strategy::LeastLoaded => f.pad("least-loaded"),
            Strategy::FreeForAll => f.pad("free-for-all"),
            Strategy::ScaleUp => f.pad("scale-up"),
        }
    }
}

impl FromStr for Strategy {
    type Err = Error;

    /// Parses the names printed by `Display`, in any case and with `_` for `-`
    /// (`FIXED_NODE_COUNT(3)`).
    fn from_str(text: &str) -> Result<Self> {
        let wanted = text.to_ascii_lowercase().replace('_', "-");
        let fixed = wanted
            .strip_prefix("fixed-node-count(")
            .and_then(|rest| rest.strip_suffix(')'))
            .map(|k| k.parse::<NonZeroU32>().map(Strategy::FixedNodeCount));
        match (wanted.as_str(), fixed) {
            ("round-robin", _) => Ok(Strategy::RoundRobin),
            ("least-loaded", _) => Ok(Strategy::LeastLoaded),
            ("free-for-all", _) => Ok(Strategy::FreeForAll),
            ("scale-up", _) => Ok(Strategy::ScaleUp),
            (_, Some(Ok(strategy))) => Ok(strategy),
            _ => Err(Error::invalid_input(format!(
                "invalid partition strategy {}: expected round-robin, fixed-node-count(K) \
                 with K at least 1, least-loaded, free-for-all or scale-up",
                crate::echo::quoted(text)
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_in_any_case() {
        let three = Strategy::FixedNodeCount(NonZeroU32::new(3).unwrap());
        let all = [
            Strategy::RoundRobin,
            three,
            Strategy::LeastLoaded,
            Strategy::FreeForAll,
            Strategy::ScaleUp,
        ];
        for strategy in all {
            assert_eq!(strategy.to_string().parse::<Strategy>().unwrap(), strategy);
        }
        assert_eq!(three.to_string(), "fixed-node-count(3)");
        assert_eq!("FIXED_NODE_COUNT(3)".parse::<Strategy>().unwrap(), three);
        assert_eq!("ROUND_ROBIN".parse::<Strategy>().unwrap(), Strategy::RoundRobin);
    }

    #[test]
    fn unknown_names_and_bad_counts_list_what_is_accepted() {
        for bad in ["random", "fixed-node-count(0)", "fixed-node-count(x)", "fixed-node-count"] {
            let err = bad.parse::<Strategy>().unwrap_err();
            assert_eq!(err.kind(), crate::ErrorKind::InvalidInput);
            assert_eq!(
                err.to_string(),
                format!(
                    "invalid partition strategy {bad:?}: expected round-robin, \
                     fixed-node-count(K) with K at least 1, least-loaded, free-for-all or \
                     scale-up"
                )
            );
        }
    }
}
