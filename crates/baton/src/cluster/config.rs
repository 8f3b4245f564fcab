//! Identity, timing and limits of a cluster node, validated up front.

use std::time::Duration;

use baton_core::cluster::{NodeId, NodeRegisterParams, NodeThresholds};
use baton_core::lease::MAX_NAME_BYTES;
use baton_core::{Error, LeaseName, Result};

use crate::ElectorConfig;

/// How a cluster node identifies itself and times its work. The defaults: a heartbeat every
/// 2 s, unreachable after 10 s of silence, removed after 5 minutes.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ClusterConfig {
    /// This node's id. By default the host name and a random incarnation number drawn at
    /// start, so that a restarted process is a new node.
    pub node: NodeId,
    /// The host this node runs on (1 to 200 printable bytes without spaces).
    pub host: String,
    /// The version of the software this node runs (1 to 200 printable bytes without spaces).
    pub version: String,
    /// How often the node heartbeats, with all its running partitions in the same call. The
    /// claim loop and the leader's sweep run at this interval too.
    pub heartbeat_interval: Duration,
    /// A node silent for longer than this (store clock) becomes unreachable and its partitions
    /// move. The node stops its partitions sooner: when no heartbeat was confirmed for 6/10 of
    /// this (monotonic clock, from the send time of the last confirmed call), so that it stops
    /// before anyone else can resume them. At least three heartbeat intervals.
    pub unreachable_after: Duration,
    /// A node silent for longer than this is removed from the cluster's live view for good.
    pub removed_after: Duration,
    /// The most partitions one claim takes.
    pub claim_batch: u32,
    /// Partitions running at once on this node.
    pub max_concurrent: usize,
    /// How long a graceful shutdown waits for running partitions before stopping them and
    /// handing them over.
    pub shutdown_grace: Duration,
    /// The lease whose holder is the cluster leader, which sweeps nodes, moves their
    /// partitions and finishes batches.
    pub lease: LeaseName,
    /// Timing of the leader election.
    pub elector: ElectorConfig,
}

impl Default for ClusterConfig {
    fn default() -> Self {
        let host = local_host();
        ClusterConfig::new(NodeId::from_host(&host, fastrand::u32(..)), host)
    }
}

impl ClusterConfig {
    /// The defaults for a node with this id on this host.
    pub fn new(node: NodeId, host: impl Into<String>) -> Self {
        let thresholds = NodeThresholds::default();
        ClusterConfig {
            node,
            host: host.into(),
            version: env!("CARGO_PKG_VERSION").to_owned(),
            heartbeat_interval: thresholds.heartbeat_interval(),
            unreachable_after: thresholds.unreachable_after(),
            removed_after: thresholds.removed_after(),
            claim_batch: 16,
            max_concurrent: 16,
            shutdown_grace: Duration::from_secs(30),
            lease: LeaseName::new("baton-cluster").expect("a valid lease name"),
            elector: ElectorConfig::default(),
        }
    }

    /// The three timing thresholds, checked: heartbeat interval < unreachable after <
    /// removed after.
    pub fn thresholds(&self) -> Result<NodeThresholds> {
        NodeThresholds::new(self.heartbeat_interval, self.unreachable_after, self.removed_after)
    }

    /// Checks every value and their relations; the error names the first bad one.
    pub fn validate(&self) -> Result<()> {
        self.elector.validate()?;
        self.registration().check()?;
        self.thresholds()?;
        if self.heartbeat_interval < Duration::from_millis(10) {
            return Err(Error::invalid_input(format!(
                "invalid heartbeat interval {:?}: expected at least 10ms",
                self.heartbeat_interval
            )));
        }
        if self.unreachable_after < self.heartbeat_interval * 3 {
            return Err(Error::invalid_input(format!(
                "invalid unreachable threshold {:?}: expected at least three heartbeat \
                 intervals ({:?})",
                self.unreachable_after,
                self.heartbeat_interval * 3
            )));
        }
        if self.claim_batch == 0 || self.claim_batch > 1000 {
            return Err(Error::invalid_input(format!(
                "invalid claim_batch {}: expected 1 to 1000",
                self.claim_batch
            )));
        }
        if self.max_concurrent == 0 || self.max_concurrent > 10_000 {
            return Err(Error::invalid_input(format!(
                "invalid max_concurrent {}: expected 1 to 10000",
                self.max_concurrent
            )));
        }
        Ok(())
    }

    /// How long after the send time of its last confirmed heartbeat the node may act: 6/10
    /// of the unreachable threshold.
    pub(crate) fn act_for(&self) -> Duration {
        self.unreachable_after.mul_f64(0.6)
    }

    /// How long a partition told to stop has to return before it is aborted: 1/5 of the
    /// unreachable threshold, so that it is gone before its node can be found unreachable.
    pub(crate) fn stop_grace(&self) -> Duration {
        self.unreachable_after / 5
    }

    /// This node's registration, with nothing running yet.
    pub(crate) fn registration(&self) -> NodeRegisterParams {
        NodeRegisterParams {
            id: self.node.clone(),
            host: self.host.clone(),
            version: self.version.clone(),
            load: 0,
        }
    }
}

/// The host name from `HOSTNAME`, without whitespace or control characters; `node` when it is
/// unset, empty or too long.
fn local_host() -> String {
    let host: String = std::env::var("HOSTNAME")
        .unwrap_or_default()
        .chars()
        .filter(|c| !c.is_control() && !c.is_whitespace())
        .collect();
    if host.is_empty() || host.len() > MAX_NAME_BYTES { "node".to_owned() } else { host }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_valid_and_ids_carry_the_host() {
        let config = ClusterConfig::default();
        config.validate().unwrap();
        assert!(config.node.as_str().starts_with(&config.host), "{}", config.node);
    }

    #[test]
    fn thresholds_out_of_order_or_too_tight_are_named() {
        let ms = Duration::from_millis;
        let base = ClusterConfig::new(NodeId::new("n1").unwrap(), "h");
        let config = ClusterConfig { removed_after: base.unreachable_after, ..base.clone() };
        let err = config.validate().unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid removal threshold 10s: expected longer than the unreachable threshold 10s"
        );
        let config = ClusterConfig {
            heartbeat_interval: ms(1000),
            unreachable_after: ms(2000),
            ..base.clone()
        };
        let err = config.validate().unwrap_err();
        assert!(err.to_string().starts_with("invalid unreachable threshold 2s"), "{err}");
        let config = ClusterConfig { host: "two words".into(), ..base.clone() };
        assert!(config.validate().unwrap_err().to_string().starts_with("invalid host"));
        let config = ClusterConfig { claim_batch: 0, ..base };
        assert_eq!(
            config.validate().unwrap_err().to_string(),
            "invalid claim_batch 0: expected 1 to 1000"
        );
    }
}
