//! When a silent node stops being active: the thresholds and the pure transition, with time
//! passed in.

use std::time::Duration;

use super::NodeState;
use crate::error::{Error, Result};
use crate::time::StoreTime;

/// How often nodes heartbeat and how long a silent node stays active and then unreachable.
///
/// Both thresholds are measured from the node's last heartbeat on the store's clock; they must
/// satisfy heartbeat interval < unreachable after < removed after.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct NodeThresholds {
    heartbeat_interval: Duration,
    unreachable_after: Duration,
    removed_after: Duration,
}

impl Default for NodeThresholds {
    /// A heartbeat every 2 s, unreachable after 10 s, removed after 5 minutes.
    fn default() -> Self {
        NodeThresholds {
            heartbeat_interval: Duration::from_secs(2),
            unreachable_after: Duration::from_secs(10),
            removed_after: Duration::from_secs(300),
        }
    }
}

impl NodeThresholds {
    /// Checks and wraps the three durations; the error names the first one out of order.
    pub fn new(
        heartbeat_interval: Duration,
        unreachable_after: Duration,
        removed_after: Duration,
    ) -> Result<Self> {
        if heartbeat_interval.is_zero() {
            return Err(Error::invalid_input(
                "invalid heartbeat interval 0s: expected a positive duration",
            ));
        }
        if unreachable_after <= heartbeat_interval {
            return Err(Error::invalid_input(format!(
                "invalid unreachable threshold {unreachable_after:?}: expected longer than the \
                 heartbeat interval {heartbeat_interval:?}"
            )));
        }
        if removed_after <= unreachable_after {
            return Err(Error::invalid_input(format!(
                "invalid removal threshold {removed_after:?}: expected longer than the \
                 unreachable threshold {unreachable_after:?}"
            )));
        }
        Ok(NodeThresholds { heartbeat_interval, unreachable_after, removed_after })
    }

    /// How often a node heartbeats.
    pub fn heartbeat_interval(&self) -> Duration {
        self.heartbeat_interval
    }

    /// How long after its last heartbeat an active node becomes unreachable.
    pub fn unreachable_after(&self) -> Duration {
        self.unreachable_after
    }

    /// How long after its last heartbeat a node is removed.
    pub fn removed_after(&self) -> Duration {
        self.removed_after
    }
}

/// The state a node in `current` should be in at store time `now`, given its last heartbeat.
///
/// A node is unreachable once its heartbeat is strictly older than the unreachable threshold
/// and removed once strictly older than the removal threshold (an active node long silent goes
/// straight to removed). States only move forward: an unreachable node never becomes active
/// again (it registers anew), and `Removed` and `Left` are final.
pub fn next_state(
    current: NodeState,
    heartbeat_at: StoreTime,
    now: StoreTime,
    thresholds: &NodeThresholds,
) -> NodeState {
    let silent = now.saturating_since(heartbeat_at);
    match current {
        NodeState::Active | NodeState::Unreachable if silent > thresholds.removed_after => {
            NodeState::Removed
        }
        NodeState::Active if silent > thresholds.unreachable_after => NodeState::Unreachable,
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn thresholds() -> NodeThresholds {
        NodeThresholds::new(Duration::from_secs(1), Duration::from_secs(5), Duration::from_secs(30))
            .unwrap()
    }

    fn at(millis: i64) -> StoreTime {
        StoreTime::from_millis(millis)
    }

    #[test]
    fn a_silent_node_goes_unreachable_then_removed_strictly_after_each_threshold() {
        let t = thresholds();
        let beat = at(10_000);
        let cases = [
            (NodeState::Active, 15_000, NodeState::Active),
            (NodeState::Active, 15_001, NodeState::Unreachable),
            (NodeState::Unreachable, 40_000, NodeState::Unreachable),
            (NodeState::Unreachable, 40_001, NodeState::Removed),
            (NodeState::Active, 40_001, NodeState::Removed),
        ];
        for (current, now, expected) in cases {
            assert_eq!(next_state(current, beat, at(now), &t), expected, "{current} at {now}");
        }
    }

    #[test]
    fn final_states_and_clock_steps_backwards_change_nothing() {
        let t = thresholds();
        for state in [NodeState::Removed, NodeState::Left] {
            assert_eq!(next_state(state, at(0), at(1_000_000), &t), state);
        }
        assert_eq!(next_state(NodeState::Active, at(50_000), at(0), &t), NodeState::Active);
        assert_eq!(next_state(NodeState::Unreachable, at(0), at(1), &t), NodeState::Unreachable);
    }

    #[test]
    fn thresholds_must_grow_and_the_error_names_the_value() {
        let s = Duration::from_secs;
        let err = NodeThresholds::new(s(2), s(2), s(30)).unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid unreachable threshold 2s: expected longer than the heartbeat interval 2s"
        );
        let err = NodeThresholds::new(s(1), s(10), s(10)).unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid removal threshold 10s: expected longer than the unreachable threshold 10s"
        );
        assert!(NodeThresholds::new(Duration::ZERO, s(1), s(2)).is_err());
        let defaults = NodeThresholds::default();
        let checked = NodeThresholds::new(
            defaults.heartbeat_interval(),
            defaults.unreachable_after(),
            defaults.removed_after(),
        );
        assert_eq!(checked.unwrap(), defaults);
    }
}
