//! Batch records and the aggregation that finishes a batch once its partitions are final.

use super::named::named_enum;
use super::{PartitionKey, Strategy};
use crate::schedule::JobName;
use crate::time::StoreTime;

named_enum!(
    /// Where a batch is in its life. `Succeeded` and `Failed` are final.
    BatchState, "batch state",
    /// Some partitions are still pending or claimed, or the batch was not finished yet.
    Running => "running",
    /// Every partition completed.
    Succeeded => "succeeded",
    /// Every partition is final and at least one failed.
    Failed => "failed",
);

/// One run of a partitioned job.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BatchJob {
    /// The store's id; listings page by it.
    pub id: i64,
    /// The partitioned job it runs.
    pub name: JobName,
    /// How its partitions were assigned, and how orphans are reassigned.
    pub strategy: Strategy,
    /// Whether a node without pending partitions of the batch takes some from the node with
    /// the most (see [`plan_moves`](super::plan_moves)).
    pub stealing: bool,
    /// Where it is in its life.
    pub state: BatchState,
    /// When it was created (store clock).
    pub created_at: StoreTime,
    /// When it finished.
    pub finished_at: Option<StoreTime>,
    /// For a failed batch: how many partitions failed, and the first ones with their errors.
    pub failure: Option<String>,
}

/// How many failed partitions a batch's failure names.
pub const LISTED_FAILURES: usize = 10;

/// The most bytes of one partition's error quoted in a batch's failure.
const QUOTED_ERROR_BYTES: usize = 200;

/// What the aggregation needs to know of a batch's partitions.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct BatchTally {
    /// Partitions still pending or claimed.
    pub unfinished: u64,
    /// Partitions failed.
    pub failed: u64,
    /// The first failed partitions by id (at most [`LISTED_FAILURES`]), with their errors.
    pub first_failed: Vec<(PartitionKey, String)>,
}

/// How a batch ends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    /// `Succeeded` or `Failed`.
    pub state: BatchState,
    /// For a failed batch, the failure to record.
    pub failure: Option<String>,
}

/// How a running batch with this tally ends, or `None` while partitions are unfinished.
///
/// A batch succeeds when every partition completed, and fails once every partition is final
/// and any failed, with a one-line failure such as `2 partitions failed: p3 (timeout), p7
/// (node n1 is unreachable; partition p7 is not transferable)`.
pub fn verdict(tally: &BatchTally) -> Option<Verdict> {
    if tally.unfinished > 0 {
        return None;
    }
    if tally.failed == 0 {
        return Some(Verdict { state: BatchState::Succeeded, failure: None });
    }
    let listed: Vec<String> = tally
        .first_failed
        .iter()
        .take(LISTED_FAILURES)
        .map(|(key, error)| format!("{key} ({})", quote(error)))
        .collect();
    let unlisted = tally.failed.saturating_sub(listed.len() as u64);
    let noun = if tally.failed == 1 { "partition" } else { "partitions" };
    let mut failure = format!("{} {noun} failed: {}", tally.failed, listed.join(", "));
    if unlisted > 0 {
        failure.push_str(&format!(" and {unlisted} more"));
    }
    Some(Verdict { state: BatchState::Failed, failure: Some(failure) })
}

/// The first line of an error, cut to [`QUOTED_ERROR_BYTES`] at a character boundary.
fn quote(error: &str) -> String {
    let line = error.lines().next().unwrap_or_default().trim();
    if line.len() <= QUOTED_ERROR_BYTES {
        return line.to_owned();
    }
    let mut end = QUOTED_ERROR_BYTES;
    while !line.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &line[..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failed(keys: &[(&str, &str)]) -> Vec<(PartitionKey, String)> {
        keys.iter().map(|(k, e)| (PartitionKey::new(*k).unwrap(), e.to_string())).collect()
    }

    #[test]
    fn a_batch_waits_while_any_partition_is_unfinished() {
        let tally = BatchTally { unfinished: 1, failed: 1, first_failed: failed(&[("a", "x")]) };
        assert_eq!(verdict(&tally), None);
    }

    #[test]
    fn a_batch_succeeds_when_every_partition_completed() {
        let verdict = verdict(&BatchTally::default()).unwrap();
        assert_eq!(verdict, Verdict { state: BatchState::Succeeded, failure: None });
    }

    #[test]
    fn a_failed_batch_lists_its_failed_partitions_on_one_line() {
        let tally = BatchTally {
            unfinished: 0,
            failed: 2,
            first_failed: failed(&[("p3", "timeout\n  at step 2"), ("p7", "node n1 left")]),
        };
        let verdict = verdict(&tally).unwrap();
        assert_eq!(verdict.state, BatchState::Failed);
        assert_eq!(
            verdict.failure.as_deref(),
            Some("2 partitions failed: p3 (timeout), p7 (node n1 left)")
        );
    }

    #[test]
    fn long_lists_and_long_errors_are_cut() {
        let many: Vec<(String, String)> =
            (0..12).map(|i| (format!("p{i}"), "é".repeat(150))).collect();
        let keys: Vec<(&str, &str)> = many.iter().map(|(k, e)| (k.as_str(), e.as_str())).collect();
        let tally = BatchTally { unfinished: 0, failed: 30, first_failed: failed(&keys) };
        let failure = verdict(&tally).unwrap().failure.unwrap();
        assert!(failure.starts_with("30 partitions failed: p0 ("), "{failure}");
        assert!(failure.ends_with("…) and 20 more"), "{failure}");
        assert!(!failure.contains("p10"), "at most ten are named: {failure}");
        assert!(failure.contains(&format!("p9 ({}…)", "é".repeat(100))), "{failure}");
        let one = BatchTally { unfinished: 0, failed: 1, first_failed: failed(&[("a", "x")]) };
        assert_eq!(verdict(&one).unwrap().failure.as_deref(), Some("1 partition failed: a (x)"));
    }
}
