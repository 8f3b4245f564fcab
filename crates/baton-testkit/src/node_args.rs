//! The command line the testkit's node binaries share: `[--leases URL] [--ttl MS]` before their
//! own arguments, so that the fault matrix can run them over any store: leases in a lease-only
//! store and state in an SQL store beside it, with the TTL the store grants.

use std::time::Duration;

use crate::faults::{MEASUREMENT_ALLOWANCE, TTL, retry_with_jitter};

/// Where a harness runs node processes: their binary, their stores and their election's TTL,
/// which become each node's command line.
#[derive(Debug, Clone)]
pub struct NodeSetup {
    /// Path of the node binary (`baton-test-node` or `baton-cluster-node`).
    pub binary: String,
    /// Backend URL the nodes use.
    pub url: String,
    /// Where their leases are: `url` itself, or a lease-only store beside it.
    pub leases: String,
    /// Their election's TTL: [`TTL`], or the lease store's shortest.
    pub ttl: Duration,
}

impl NodeSetup {
    /// Nodes running `binary` with leases and state in the one store at `url`, under [`TTL`].
    pub fn on(binary: &str, url: String) -> NodeSetup {
        NodeSetup { binary: binary.to_string(), leases: url.clone(), url, ttl: TTL }
    }

    /// How long the fail-over of a killed or paused leader may take: its lease's TTL, the
    /// contenders' retry period, and the allowance for a busy machine.
    pub fn failover_bound(&self) -> Duration {
        self.ttl + retry_with_jitter(self.ttl) + MEASUREMENT_ALLOWANCE
    }
}

/// A node binary's command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeArgs {
    /// Where the leases are (`--leases`): the backend URL itself unless given.
    pub leases: Option<String>,
    /// The election TTL (`--ttl`, in milliseconds), if given.
    pub ttl: Option<Duration>,
    /// The binary's own arguments, after the options.
    pub rest: Vec<String>,
}

impl NodeArgs {
    /// Parses the options at the start of `args` (the program name excluded).
    pub fn parse(args: impl IntoIterator<Item = String>) -> anyhow::Result<NodeArgs> {
        let mut parsed = NodeArgs { leases: None, ttl: None, rest: Vec::new() };
        let mut args = args.into_iter();
        while let Some(arg) = args.next() {
            let mut value =
                |name: &str| args.next().ok_or_else(|| anyhow::anyhow!("{name} needs a value"));
            match arg.as_str() {
                "--leases" => parsed.leases = Some(value("--leases")?),
                "--ttl" => {
                    let millis = value("--ttl")?;
                    let millis: u64 = millis
                        .parse()
                        .map_err(|_| anyhow::anyhow!("--ttl {millis:?}: expected milliseconds"))?;
                    parsed.ttl = Some(Duration::from_millis(millis));
                }
                _ => {
                    parsed.rest.push(arg);
                    parsed.rest.extend(args);
                    break;
                }
            }
        }
        Ok(parsed)
    }

    /// The options as arguments, for a command that starts a node.
    pub fn options(leases: &str, ttl: Duration) -> [String; 4] {
        [
            "--leases".to_string(),
            leases.to_string(),
            "--ttl".to_string(),
            ttl.as_millis().to_string(),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(words: &[&str]) -> Vec<String> {
        words.iter().map(|word| word.to_string()).collect()
    }

    #[test]
    fn options_come_before_the_binary_s_own_arguments() {
        let parsed =
            NodeArgs::parse(args(&["--ttl", "10000", "--leases", "redis://x", "sqlite://a", "n"]))
                .unwrap();
        assert_eq!(parsed.leases.as_deref(), Some("redis://x"));
        assert_eq!(parsed.ttl, Some(Duration::from_secs(10)));
        assert_eq!(parsed.rest, args(&["sqlite://a", "n"]));
        let round_trip = NodeArgs::parse(
            NodeArgs::options("etcd://y", Duration::from_secs(3)).into_iter().chain(args(&["u"])),
        )
        .unwrap();
        assert_eq!(round_trip.leases.as_deref(), Some("etcd://y"));
        assert_eq!(round_trip.ttl, Some(Duration::from_secs(3)));
        let plain = NodeArgs::parse(args(&["sqlite://a", "--ttl"])).unwrap();
        assert_eq!((plain.leases, plain.ttl), (None, None));
        assert!(NodeArgs::parse(args(&["--ttl", "soon"])).is_err());
        assert!(NodeArgs::parse(args(&["--leases"])).is_err());
    }
}
