//! Drives `baton-cluster-node` processes, cluster nodes for fault tests, and holds what they
//! share with the binary: the timing, the partitioned job's work, and the lines they print.
//!
//! The job, [`JOB`], splits [`PARTITIONS`] ranges of [`ITEMS_PER_PARTITION`] items; each item
//! takes [`ITEM_WORK`] and is committed through the [item ledger](crate::item_ledger) under the
//! claim's token, with a checkpoint every [`CHECKPOINT_EVERY`] items.
//!
//! The process plumbing is [`EventedProcess`]'s, reached through `Deref`.

use std::ops::{Deref, DerefMut, Range};
use std::time::Duration;

use baton::cluster::{JsonText, PartitionKey, PartitionSpec};
use tokio::process::Command;

pub use crate::evented::Event;
use crate::evented::EventedProcess;
use crate::node_args::NodeArgs;

/// How often a node heartbeats, claims, and (leading) sweeps.
pub const HEARTBEAT_INTERVAL: Duration = Duration::from_millis(200);
/// A node silent this long (store clock) is unreachable and its partitions move; it stops
/// them itself after 6/10 of this without a confirmed heartbeat.
pub const UNREACHABLE_AFTER: Duration = Duration::from_secs(2);
/// A node silent this long is removed; longer than any test pauses a node.
pub const REMOVED_AFTER: Duration = Duration::from_secs(60);
/// How long a graceful shutdown waits for running partitions.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(10);

/// The partitioned job every node registers.
pub const JOB: &str = "items";
/// Partitions per batch: two per node of three, round-robin.
pub const PARTITIONS: u64 = 6;
/// Items in each partition.
pub const ITEMS_PER_PARTITION: u64 = 30;
/// The work each item takes before its commit.
pub const ITEM_WORK: Duration = Duration::from_millis(50);
/// A partition checkpoints after every this many items.
pub const CHECKPOINT_EVERY: u64 = 5;

/// The partitions of a batch: `items-<i>` with the parameters `[from,to]`, the range of items
/// it commits.
pub fn partition_specs() -> baton::Result<Vec<PartitionSpec>> {
    (0..PARTITIONS)
        .map(|i| {
            let from = i * ITEMS_PER_PARTITION;
            let params = JsonText::new(format!("[{from},{}]", from + ITEMS_PER_PARTITION))?;
            Ok(PartitionSpec::new(PartitionKey::new(format!("items-{i}"))?, params))
        })
        .collect()
}

/// The items of a partition, from its parameters.
pub fn items(params: &JsonText) -> Option<Range<u64>> {
    let [from, to] = numbers(params)?;
    Some(from..to)
}

/// A partition's checkpoint: the next item to commit, and the token of the claim that saved
/// it, as `[next,by]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Checkpoint {
    /// The first item not yet committed by the claim that saved it.
    pub next: u64,
    /// The token of that claim.
    pub by: u64,
}

impl Checkpoint {
    /// The checkpoint as stored.
    pub fn to_json(self) -> JsonText {
        JsonText::new(format!("[{},{}]", self.next, self.by)).expect("an array of numbers")
    }

    /// A checkpoint as stored.
    pub fn parse(json: &JsonText) -> Option<Self> {
        let [next, by] = numbers(json)?;
        Some(Checkpoint { next, by })
    }
}

/// A JSON array of `N` unsigned integers.
fn numbers<const N: usize>(json: &JsonText) -> Option<[u64; N]> {
    let inner = json.as_str().trim().strip_prefix('[')?.strip_suffix(']')?;
    let parsed: Vec<u64> =
        inner.split(',').map(|n| n.trim().parse().ok()).collect::<Option<_>>()?;
    parsed.try_into().ok()
}

/// A claim's start as a node reports it: `STARTED <key> <attempt> <next> <by> <token>`, where
/// `next` and `by` are the checkpoint it resumes from (`by` 0 on a fresh start).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Started {
    /// The partition's key.
    pub key: String,
    /// The claim's attempt, from 1.
    pub attempt: u32,
    /// Where it resumes.
    pub from: Checkpoint,
    /// The claim's token.
    pub token: u64,
}

impl Started {
    /// The claim a `STARTED` event is about.
    pub fn of(event: &Event) -> Option<Started> {
        if event.kind != "STARTED" {
            return None;
        }
        let words: Vec<&str> = event.detail.split_whitespace().collect();
        let [key, attempt, next, by, token] = words.as_slice() else { return None };
        Some(Started {
            key: key.to_string(),
            attempt: attempt.parse().ok()?,
            from: Checkpoint { next: next.parse().ok()?, by: by.parse().ok()? },
            token: token.parse().ok()?,
        })
    }
}

/// The partition key an event is about: its first word.
pub fn key(event: &Event) -> &str {
    event.detail.split_whitespace().next().unwrap_or("")
}

/// The item an item event (`WROTE`, `REDONE`, `REJECTED`, `LOST`) is about: its second word.
pub fn item(event: &Event) -> Option<u64> {
    event.detail.split_whitespace().nth(1)?.parse().ok()
}

/// A running `baton-cluster-node` process; killed when dropped.
pub struct ClusterNode {
    process: EventedProcess,
    /// Its node id, and its holder id in the leader election.
    pub name: String,
}

impl ClusterNode {
    /// Starts `binary` (the path of `baton-cluster-node`) on the backend `url` with its leases
    /// at `leases` under `ttl`, as node `name`.
    pub fn spawn(binary: &str, [url, leases]: [&str; 2], ttl: Duration, name: &str) -> Self {
        let mut command = Command::new(binary);
        command.args(NodeArgs::options(leases, ttl)).args([url, name]);
        ClusterNode { process: EventedProcess::spawn(command, name), name: name.to_string() }
    }

    /// Asks the node to shut down gracefully and waits until it has and exited.
    pub async fn quit(&mut self, within: Duration) {
        self.send_line("QUIT").await;
        self.expect("STOPPED", within).await;
        assert!(self.wait_exit(within).await, "{} exited with an error", self.name);
    }
}

impl Deref for ClusterNode {
    type Target = EventedProcess;

    fn deref(&self) -> &EventedProcess {
        &self.process
    }
}

impl DerefMut for ClusterNode {
    fn deref_mut(&mut self) -> &mut EventedProcess {
        &mut self.process
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partitions_and_checkpoints_round_trip() {
        let specs = partition_specs().unwrap();
        assert_eq!(specs.len() as u64, PARTITIONS);
        assert_eq!(items(&specs[1].params), Some(ITEMS_PER_PARTITION..2 * ITEMS_PER_PARTITION));
        let checkpoint = Checkpoint { next: 35, by: 12 };
        assert_eq!(Checkpoint::parse(&checkpoint.to_json()), Some(checkpoint));
        assert_eq!(Checkpoint::parse(&JsonText::new("[1,2,3]").unwrap()), None);
        assert_eq!(items(&JsonText::new(r#"{"from":1}"#).unwrap()), None);
    }
}
