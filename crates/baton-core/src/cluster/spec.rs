//! What a partitioner returns, and the checks every batch passes before anything is stored.

use std::collections::HashSet;

use super::{JsonText, PartitionKey};
use crate::error::{Error, Result};

/// The most partitions one batch may have.
pub const MAX_PARTITIONS: usize = 100_000;

/// The most bytes of parameters one partition may have.
pub const MAX_PARAMS_BYTES: usize = 64 * 1024;

/// One partition as a partitioner describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartitionSpec {
    /// Its key, unique within the batch.
    pub key: PartitionKey,
    /// What to work on (at most [`MAX_PARAMS_BYTES`]).
    pub params: JsonText,
    /// Whether it may resume on another node from its last checkpoint when its node is lost;
    /// a partition that is not fails its batch instead.
    pub transferable: bool,
}

impl PartitionSpec {
    /// A transferable partition.
    pub fn new(key: PartitionKey, params: JsonText) -> Self {
        PartitionSpec { key, params, transferable: true }
    }

    /// Sets whether the partition may move to another node.
    pub fn with_transferable(mut self, transferable: bool) -> Self {
        self.transferable = transferable;
        self
    }
}

/// Checks what a partitioner returned: 1 to `max` partitions (itself at most
/// [`MAX_PARTITIONS`]), unique keys, parameters of at most [`MAX_PARAMS_BYTES`]. The error
/// names the first offending value.
pub fn check_specs<'a>(
    specs: impl ExactSizeIterator<Item = &'a PartitionSpec>,
    max: usize,
) -> Result<()> {
    let max = max.min(MAX_PARTITIONS);
    if specs.len() == 0 || specs.len() > max {
        return Err(Error::invalid_input(format!(
            "invalid partition count {}: expected 1 to {max} partitions",
            specs.len()
        )));
    }
    let mut keys = HashSet::with_capacity(specs.len());
    for spec in specs {
        if !keys.insert(&spec.key) {
            return Err(Error::invalid_input(format!(
                "duplicate partition key {:?}: expected every key of a batch to be unique",
                spec.key.as_str()
            )));
        }
        let size = spec.params.as_str().len();
        if size > MAX_PARAMS_BYTES {
            return Err(Error::invalid_input(format!(
                "invalid parameters of partition {:?}: {size} bytes, expected at most \
                 {MAX_PARAMS_BYTES}",
                spec.key.as_str()
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(key: &str, params: &str) -> PartitionSpec {
        PartitionSpec::new(PartitionKey::new(key).unwrap(), JsonText::new(params).unwrap())
    }

    #[test]
    fn accepts_unique_keys_up_to_the_maximum() {
        let specs = [spec("a", "1"), spec("b", &"2".repeat(MAX_PARAMS_BYTES))];
        assert!(check_specs(specs.iter(), 2).is_ok());
        let err = check_specs(specs.iter(), 1).unwrap_err();
        assert_eq!(err.to_string(), "invalid partition count 2: expected 1 to 1 partitions");
    }

    #[test]
    fn rejects_no_partitions_and_more_than_the_hard_cap() {
        let err = check_specs([].iter(), 10).unwrap_err();
        assert_eq!(err.to_string(), "invalid partition count 0: expected 1 to 10 partitions");
        let many: Vec<PartitionSpec> =
            (0..=MAX_PARTITIONS).map(|i| spec(&format!("p{i}"), "{}")).collect();
        let err = check_specs(many.iter(), usize::MAX).unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid partition count 100001: expected 1 to 100000 partitions"
        );
    }

    #[test]
    fn rejects_duplicate_keys_and_oversized_parameters_naming_them() {
        let err = check_specs([spec("a", "1"), spec("b", "2"), spec("a", "3")].iter(), 10);
        assert_eq!(
            err.unwrap_err().to_string(),
            r#"duplicate partition key "a": expected every key of a batch to be unique"#
        );
        let big = spec("big", &"x".repeat(MAX_PARAMS_BYTES + 1));
        let err = check_specs([big].iter(), 10).unwrap_err();
        assert_eq!(
            err.to_string(),
            r#"invalid parameters of partition "big": 65537 bytes, expected at most 65536"#
        );
    }

    #[test]
    fn specs_are_transferable_unless_told() {
        assert!(spec("a", "1").transferable);
        assert!(!spec("a", "1").with_transferable(false).transferable);
    }
}
