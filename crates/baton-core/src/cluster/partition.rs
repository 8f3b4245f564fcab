//! Partition records: one slice of a batch's work, claimed by one node at a time.

use super::named::named_enum;
use super::{JsonText, NodeId};
use crate::lease::FencingToken;
use crate::name::validated_name;
use crate::time::StoreTime;

validated_name!(
    /// The key of a partition, unique within its batch: 1 to 200 bytes of printable
    /// characters without spaces, such as `rows-0-99999`.
    PartitionKey,
    "partition key"
);

named_enum!(
    /// Where a partition is in its life. `Completed` and `Failed` are final.
    ///
    /// ```text
    /// pending ──claim──▶ claimed ──complete──▶ completed
    ///    ▲                  │ └────fail──────▶ failed
    ///    └──node lost, transferable──┘ (node lost, not transferable ──▶ failed)
    /// ```
    PartitionState, "partition state",
    /// Waiting for its assigned node (or, unassigned, any node) to claim it.
    Pending => "pending",
    /// Running on the node that claimed it, under the token of that claim.
    Claimed => "claimed",
    /// Finished with a result.
    Completed => "completed",
    /// Finished with an error, or lost with its node when it could not move.
    Failed => "failed",
);

impl PartitionState {
    /// Whether the state never changes again.
    pub fn is_final(self) -> bool {
        matches!(self, PartitionState::Completed | PartitionState::Failed)
    }
}

/// A partition as the store keeps it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Partition {
    /// The store's id; listings page by it and heartbeats name it.
    pub id: i64,
    /// The batch it belongs to.
    pub batch: i64,
    /// Its key, unique within the batch.
    pub key: PartitionKey,
    /// What to work on, as the partitioner described it.
    pub params: JsonText,
    /// Whether it may resume on another node when its node is lost.
    pub transferable: bool,
    /// Where it is in its life.
    pub state: PartitionState,
    /// The node it is assigned to or claimed by; `None` while any node may claim it.
    pub node: Option<NodeId>,
    /// The token of its latest claim; only a claimed partition's token is current. Every
    /// claim issues a token greater than any issued before.
    pub token: Option<FencingToken>,
    /// The progress last saved, from which a new claim resumes.
    pub checkpoint: Option<JsonText>,
    /// What it produced, once completed.
    pub result: Option<JsonText>,
    /// How many times it was claimed.
    pub attempts: u32,
    /// Units of work done, as last reported by its node.
    pub progress: u64,
    /// When the batch was created (store clock).
    pub created_at: StoreTime,
    /// When it was last claimed.
    pub claimed_at: Option<StoreTime>,
    /// The last heartbeat or checkpoint of its current or latest claim.
    pub heartbeat_at: Option<StoreTime>,
    /// When it reached a final state.
    pub finished_at: Option<StoreTime>,
    /// Why it failed.
    pub error: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn final_states_are_completed_and_failed() {
        let finals: Vec<&str> =
            PartitionState::ALL.iter().filter(|s| s.is_final()).map(|s| s.as_str()).collect();
        assert_eq!(finals, ["completed", "failed"]);
        assert_eq!("CLAIMED".parse::<PartitionState>().unwrap(), PartitionState::Claimed);
    }

    #[test]
    fn keys_are_validated_like_names() {
        assert!(PartitionKey::new("rows-0-99999").is_ok());
        let err = PartitionKey::new("rows 0").unwrap_err();
        assert!(err.to_string().starts_with(r#"invalid partition key "rows 0""#), "{err}");
    }
}
