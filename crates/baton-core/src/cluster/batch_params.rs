//! Parameters and outcomes of the batch and partition operations of
//! [`ClusterStore`](super::ClusterStore).

use super::{
    BatchState, JsonText, NodeId, NodeLoad, Partition, PartitionSpec, PartitionState, Strategy,
    assign, check_specs,
};
use crate::error::{Error, Result};
use crate::lease::FencingToken;
use crate::page::Cursor;
use crate::schedule::JobName;

/// The most bytes of a partition's error a store keeps.
pub const MAX_ERROR_BYTES: usize = 4096;

/// A partition of a new batch with the node it is assigned to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AssignedPartition {
    /// What the partitioner returned.
    pub spec: PartitionSpec,
    /// The node that is to claim it; `None`: any node may.
    pub node: Option<NodeId>,
}

/// Create a batch and all its partitions at once, pending.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BatchCreateParams {
    /// The partitioned job it runs.
    pub name: JobName,
    /// How the partitions were assigned.
    pub strategy: Strategy,
    /// Whether idle nodes steal pending partitions (not with `free-for-all`).
    pub stealing: bool,
    /// The partitions, in order.
    pub partitions: Vec<AssignedPartition>,
}

impl BatchCreateParams {
    /// Checks what a partitioner returned (1 to `max` partitions, unique keys, parameters
    /// within the limit) and assigns it to the live nodes by `strategy`.
    pub fn plan(
        name: JobName,
        strategy: Strategy,
        specs: Vec<PartitionSpec>,
        live: &[NodeLoad],
        max: usize,
    ) -> Result<Self> {
        check_specs(specs.iter(), max)?;
        let nodes = assign(strategy, specs.len(), live)?;
        let partitions =
            specs.into_iter().zip(nodes).map(|(spec, node)| AssignedPartition { spec, node });
        let partitions = partitions.collect();
        Ok(BatchCreateParams { name, strategy, stealing: false, partitions })
    }

    /// Checks the partitions as [`check_specs`] does against
    /// [`MAX_PARTITIONS`](super::MAX_PARTITIONS), and that a `free-for-all` batch assigns none
    /// and does not steal.
    pub fn check(&self) -> Result<()> {
        check_specs(self.partitions.iter().map(|p| &p.spec), super::MAX_PARTITIONS)?;
        if self.strategy != Strategy::FreeForAll {
            return Ok(());
        }
        if self.stealing {
            return Err(Error::invalid_input(
                "invalid work stealing in a free-for-all batch: expected an assigning strategy \
                 (any node claims any partition of a free-for-all batch)",
            ));
        }
        match self.partitions.iter().find(|p| p.node.is_some()) {
            None => Ok(()),
            Some(p) => Err(Error::invalid_input(format!(
                "invalid assignment of partition {:?} to node {}: expected no assignment in a \
                 free-for-all batch",
                p.spec.key.as_str(),
                p.node.as_ref().map_or("", |n| n.as_str())
            ))),
        }
    }
}

/// A page request over batches, ordered by id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BatchListParams {
    /// Only batches of this job.
    pub name: Option<JobName>,
    /// Only batches in this state.
    pub state: Option<BatchState>,
    /// Start after this cursor; `None` for the first page.
    pub after: Option<Cursor>,
    /// Items per page (1 to 1000).
    pub limit: u32,
}

impl Default for BatchListParams {
    fn default() -> Self {
        BatchListParams { name: None, state: None, after: None, limit: 100 }
    }
}

/// A page request over one batch's partitions, ordered by id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartitionListParams {
    /// The batch.
    pub batch: i64,
    /// Only partitions in this state.
    pub state: Option<PartitionState>,
    /// Start after this cursor; `None` for the first page.
    pub after: Option<Cursor>,
    /// Items per page (1 to 1000).
    pub limit: u32,
}

impl PartitionListParams {
    /// The first page of 100 of a batch's partitions.
    pub fn new(batch: i64) -> Self {
        PartitionListParams { batch, state: None, after: None, limit: 100 }
    }
}

/// Claim pending partitions for a node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartitionClaimParams {
    /// The node claiming.
    pub node: NodeId,
    /// The token of its incarnation; only an active incarnation may claim.
    pub token: FencingToken,
    /// The most partitions to claim at once (1 to 1000).
    pub limit: u32,
    /// Only partitions of batches of these jobs (the ones the node can run); empty means any.
    pub jobs: Vec<JobName>,
}

/// Save a claimed partition's progress, replacing the previous checkpoint as a whole.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartitionCheckpointParams {
    /// The partition.
    pub id: i64,
    /// The token of the claim.
    pub token: FencingToken,
    /// Where a later claim resumes from.
    pub checkpoint: JsonText,
    /// Units of work done so far.
    pub progress: u64,
}

/// Finish a claimed partition with its result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartitionCompleteParams {
    /// The partition.
    pub id: i64,
    /// The token of the claim.
    pub token: FencingToken,
    /// What it produced.
    pub result: Option<JsonText>,
}

/// Finish a claimed partition with an error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartitionFailParams {
    /// The partition.
    pub id: i64,
    /// The token of the claim.
    pub token: FencingToken,
    /// What went wrong; the store keeps [`stored_error`](Self::stored_error).
    pub error: String,
}

impl PartitionFailParams {
    /// The error as stored: its first [`MAX_ERROR_BYTES`] bytes, cut at a character boundary.
    pub fn stored_error(&self) -> &str {
        let mut end = self.error.len().min(MAX_ERROR_BYTES);
        while !self.error.is_char_boundary(end) {
            end -= 1;
        }
        &self.error[..end]
    }
}

/// Move the partitions of nodes that are gone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PartitionReassignParams {
    /// The most partitions to handle at once (1 to 1000).
    pub limit: u32,
}

impl Default for PartitionReassignParams {
    fn default() -> Self {
        PartitionReassignParams { limit: 1000 }
    }
}

/// What a reassignment did.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Reassigned {
    /// Partitions back to pending, each assigned to a live node or to none.
    pub moved: Vec<Partition>,
    /// Claimed partitions that could not move and failed.
    pub failed: Vec<Partition>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::PartitionKey;

    fn spec(key: &str) -> PartitionSpec {
        PartitionSpec::new(PartitionKey::new(key).unwrap(), JsonText::new("{}").unwrap())
    }

    fn name() -> JobName {
        JobName::new("etl").unwrap()
    }

    #[test]
    fn plan_checks_then_assigns() {
        let live = [NodeLoad::new(NodeId::new("b").unwrap(), 0)];
        let plan =
            BatchCreateParams::plan(name(), Strategy::RoundRobin, vec![spec("x")], &live, 10);
        let plan = plan.unwrap();
        assert_eq!(plan.partitions[0].node.as_ref().map(|n| n.as_str()), Some("b"));
        assert!(plan.check().is_ok());
        let twice = vec![spec("x"), spec("x")];
        let err = BatchCreateParams::plan(name(), Strategy::RoundRobin, twice, &live, 10);
        assert!(err.unwrap_err().to_string().starts_with("duplicate partition key"));
    }

    #[test]
    fn a_free_for_all_batch_assigns_no_partition() {
        let node = Some(NodeId::new("n1").unwrap());
        let params = BatchCreateParams {
            name: name(),
            strategy: Strategy::FreeForAll,
            stealing: false,
            partitions: vec![AssignedPartition { spec: spec("p1"), node }],
        };
        assert_eq!(
            params.check().unwrap_err().to_string(),
            r#"invalid assignment of partition "p1" to node n1: expected no assignment in a free-for-all batch"#
        );
        let stealing = BatchCreateParams {
            stealing: true,
            partitions: vec![AssignedPartition { spec: spec("p1"), node: None }],
            ..params
        };
        assert!(stealing.check().unwrap_err().to_string().starts_with("invalid work stealing"));
    }

    #[test]
    fn stored_errors_are_cut_at_a_character_boundary() {
        let token = FencingToken::new(1).unwrap();
        let long = PartitionFailParams { id: 1, token, error: "é".repeat(MAX_ERROR_BYTES) };
        assert_eq!(long.stored_error().len(), MAX_ERROR_BYTES);
        let odd = PartitionFailParams { error: format!("x{}", "é".repeat(3000)), ..long };
        assert_eq!(odd.stored_error().len(), MAX_ERROR_BYTES - 1);
        let short = PartitionFailParams { error: "boom".into(), ..odd };
        assert_eq!(short.stored_error(), "boom");
    }
}
