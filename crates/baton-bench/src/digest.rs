//! The work of the scale-up part of `baton bench partitions`: equal partitions, each a chain
//! of a fixed number of mixing steps seeded by its key, CPU-bound and deterministic, so that a
//! batch's results can be compared with a plain loop's and a resumed partition (from its
//! checkpoint: the step reached and the value there) ends where an uninterrupted one does.

use baton::cluster::{
    JsonText, Partition, PartitionContext, PartitionKey, PartitionSpec, PartitionedJob, Strategy,
};
use baton::core::schedule::JobName;

/// Checkpoints per partition.
const CHECKPOINTS: u64 = 10;

/// The digest job: `partitions` partitions of `steps` mixing steps each.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Digest {
    /// Partitions per batch.
    pub(crate) partitions: u32,
    /// Mixing steps per partition.
    pub(crate) steps: u64,
}

impl Digest {
    /// The partitioned job named `name`, assigning by `scale-up`.
    pub(crate) fn job(self, name: JobName) -> PartitionedJob {
        let partitioner = move |_live: usize| async move { self.specs() };
        let handler = move |ctx: PartitionContext| async move { self.run(&ctx).await };
        PartitionedJob::new(name, partitioner, handler).strategy(Strategy::ScaleUp)
    }

    /// The partitions, keyed `d000`, `d001`, … so that keys sort in order.
    fn specs(self) -> baton::Result<Vec<PartitionSpec>> {
        (0..self.partitions)
            .map(|i| Ok(PartitionSpec::new(PartitionKey::new(key(i))?, JsonText::new("{}")?)))
            .collect()
    }

    /// Runs one partition from its checkpoint, checkpointing every tenth of the steps; the
    /// result is the final value as 16 hex digits.
    async fn run(self, ctx: &PartitionContext) -> Result<String, String> {
        let (mut step, mut value) = match ctx.resume_from() {
            Some(saved) => parse_checkpoint(saved.as_str())?,
            None => (0, seed(ctx.key().as_str())),
        };
        let stride = self.steps.div_ceil(CHECKPOINTS).max(1);
        while step < self.steps {
            let until = (step + stride).min(self.steps);
            let from = (step, value);
            value = tokio::task::spawn_blocking(move || advance(from.1, until - from.0))
                .await
                .map_err(|err| err.to_string())?;
            step = until;
            if step < self.steps {
                let saved = JsonText::new(format!(r#"{{"step":{step},"value":"{value:016x}"}}"#))
                    .map_err(|err| err.to_string())?;
                ctx.checkpoint(saved, step).await.map_err(|err| err.to_string())?;
            }
        }
        Ok(format!(r#""{value:016x}""#))
    }

    /// The results of every partition, in key order, computed by a plain loop on one thread.
    pub(crate) fn plain(self) -> Vec<String> {
        (0..self.partitions)
            .map(|i| format!(r#""{:016x}""#, advance(seed(&key(i)), self.steps)))
            .collect()
    }
}

/// The results of a batch's partitions, in key order (`None` for one without a result).
pub(crate) fn results(partitions: &[Partition]) -> Vec<Option<String>> {
    let mut sorted: Vec<&Partition> = partitions.iter().collect();
    sorted.sort_by(|a, b| a.key.as_str().cmp(b.key.as_str()));
    sorted.iter().map(|p| p.result.as_ref().map(|r| r.as_str().to_owned())).collect()
}

fn key(index: u32) -> String {
    format!("d{index:03}")
}

/// The starting value of a partition: its key's bytes folded in.
fn seed(key: &str) -> u64 {
    key.bytes().fold(0x9e37_79b9_7f4a_7c15, |value, byte| mix(value ^ u64::from(byte)))
}

/// `steps` mixing steps from `value`.
fn advance(mut value: u64, steps: u64) -> u64 {
    for _ in 0..steps {
        value = mix(value);
    }
    value
}

/// One step of SplitMix64.
fn mix(value: u64) -> u64 {
    let mut z = value.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The step and value of a checkpoint `{"step":N,"value":"HEX"}`.
fn parse_checkpoint(text: &str) -> Result<(u64, u64), String> {
    let bad = || format!("unreadable checkpoint {text}");
    let rest = text.strip_prefix(r#"{"step":"#).ok_or_else(bad)?;
    let (step, rest) = rest.split_once(r#","value":""#).ok_or_else(bad)?;
    let value = rest.strip_suffix(r#""}"#).ok_or_else(bad)?;
    Ok((step.parse().map_err(|_| bad())?, u64::from_str_radix(value, 16).map_err(|_| bad())?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chain_resumed_from_a_checkpoint_ends_where_an_uninterrupted_one_does() {
        let start = seed("d007");
        let whole = advance(start, 1000);
        let (step, value) =
            parse_checkpoint(&format!(r#"{{"step":400,"value":"{:016x}"}}"#, advance(start, 400)))
                .unwrap();
        assert_eq!(step, 400);
        assert_eq!(advance(value, 600), whole);
        assert_ne!(seed("d007"), seed("d070"));
        assert!(parse_checkpoint("{}").unwrap_err().starts_with("unreadable checkpoint"));
    }
}
