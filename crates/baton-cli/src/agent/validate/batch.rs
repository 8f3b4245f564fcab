//! A `[[batch]]`: name, command, partitions, strategy, stealing and an optional schedule.

use std::collections::HashMap;
use std::path::Path;

use baton::cluster::{JsonText, PartitionKey, PartitionSpec, Strategy};
use baton::core::cluster::MAX_PARTITIONS;

use super::super::config::CommandBatch;
use super::super::error::Problem;
use super::super::locate::KeyPath;
use super::super::schema::{RawBatch, RawPartitions};
use super::command::{CommandKeys, command};
use super::job::name;
use super::schedule::{ScheduleKeys, schedule};
use super::values::named;

/// The batch at `table`.
pub fn batch(table: &KeyPath, raw: &RawBatch, base: &Path) -> Result<CommandBatch, Problem> {
    let name = name(table, raw.name.as_deref())?;
    let keys = CommandKeys {
        command: raw.command.as_ref().map(|line| line.0.as_slice()),
        working_dir: raw.working_dir.as_deref(),
        env: &raw.env,
    };
    let command = command(table, &keys, base)?;
    let transferable = raw.transferable.unwrap_or(true);
    let partitions = partitions(&table.key("partitions"), raw.partitions.as_ref(), transferable)?;
    let strategy = match &raw.strategy {
        Some(text) => named::<Strategy>(&table.key("strategy"), text)?,
        None => Strategy::RoundRobin,
    };
    let stealing = raw.stealing.unwrap_or(false);
    if stealing && strategy == Strategy::FreeForAll {
        return Err(Problem::at(
            &table.key("stealing"),
            "invalid work stealing with strategy free-for-all: expected an assigning strategy \
             (any node claims any partition of a free-for-all batch)",
        ));
    }
    let keys = ScheduleKeys {
        cron: raw.cron.as_deref(),
        every: raw.every.as_ref(),
        at: raw.at.as_deref(),
        time_zone: raw.time_zone.as_deref(),
    };
    let schedule = schedule(table, &keys)?;
    Ok(CommandBatch { name, command, partitions, strategy, stealing, schedule })
}

/// The partitions of every batch: `N` makes keys `0` to `N-1`; a list gives the keys. Each
/// partition's parameters are `{"key":K,"index":I,"count":N}`.
fn partitions(
    key: &KeyPath,
    raw: Option<&RawPartitions>,
    transferable: bool,
) -> Result<Vec<PartitionSpec>, Problem> {
    let keys: Vec<String> = match raw {
        None => {
            return Err(Problem::at(
                key,
                r#"missing: expected a partition count such as 8, or a list of keys such as ["eu", "us"]"#,
            ));
        }
        Some(RawPartitions::Count(given)) => {
            let count = usize::try_from(*given).ok().filter(|n| (1..=MAX_PARTITIONS).contains(n));
            let Some(count) = count else {
                return Err(Problem::at(
                    key,
                    format!("invalid partition count {given}: expected 1 to {MAX_PARTITIONS}"),
                ));
            };
            (0..count).map(|i| i.to_string()).collect()
        }
        Some(RawPartitions::Keys(keys)) => keys.clone(),
    };
    if keys.is_empty() || keys.len() > MAX_PARTITIONS {
        return Err(Problem::at(
            key,
            format!("{} partition keys: expected 1 to {MAX_PARTITIONS}", keys.len()),
        ));
    }
    let count = keys.len();
    let mut specs = Vec::with_capacity(count);
    let mut seen = HashMap::with_capacity(count);
    for (index, text) in keys.iter().enumerate() {
        let at = key.index(index);
        let partition = PartitionKey::new(text.as_str()).map_err(|err| Problem::at(&at, err))?;
        if let Some(twice) = seen.insert(text.as_str(), index) {
            return Err(Problem::at(
                &at,
                format!(
                    "duplicate partition key {text:?} (also at index {twice}): expected each key once"
                ),
            ));
        }
        let params = serde_json::json!({ "key": text, "index": index, "count": count });
        let params = JsonText::new(params.to_string()).map_err(|err| Problem::at(&at, err))?;
        specs.push(PartitionSpec::new(partition, params).with_transferable(transferable));
    }
    Ok(specs)
}
