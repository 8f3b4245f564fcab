//! The `/metrics` exposition is well formed: every family that has samples has its HELP and
//! TYPE lines, for what the runtime records and what the stores show alike.

mod common;

use std::collections::{BTreeMap, BTreeSet};

use baton::metrics::{
    EXECUTIONS, FIRE_LAG_SECONDS, FIRES_MISSED, FIRES_SKIPPED, LEASE_RENEW_FAILURES,
    LEASE_RENEW_SECONDS, LEASES_LOST,
};
use common::{Fixture, get};

/// The family a sample belongs to, given the families' types.
fn family<'a>(sample: &'a str, types: &BTreeMap<&str, &str>) -> &'a str {
    for suffix in ["_bucket", "_sum", "_count"] {
        if let Some(base) = sample.strip_suffix(suffix)
            && matches!(types.get(base), Some(&"histogram") | Some(&"summary"))
        {
            return base;
        }
    }
    sample
}

#[tokio::test]
async fn every_family_has_help_and_type() {
    baton_server::metrics::install().expect("the Prometheus recorder");
    metrics::histogram!(LEASE_RENEW_SECONDS, "outcome" => "renewed").record(0.002);
    metrics::counter!(LEASE_RENEW_FAILURES, "reason" => "timeout").increment(1);
    metrics::counter!(LEASES_LOST, "lease" => "l").increment(1);
    metrics::counter!(EXECUTIONS, "job" => "j", "status" => "succeeded").increment(1);
    metrics::histogram!(FIRE_LAG_SECONDS, "job" => "j").record(0.01);
    metrics::counter!(FIRES_SKIPPED, "job" => "j", "reason" => "paused").increment(1);
    metrics::counter!(FIRES_MISSED, "job" => "j", "reason" => "misfire").increment(1);
    let fixture = Fixture::new().await;
    fixture.lease_held("scheduler", "holder-1").await;
    let node = fixture.node_registered("worker-1").await;
    fixture.batch("etl", &node).await;
    let router = fixture.admin_router("admin-secret");

    let text = get(&router, "/metrics").await.text;
    let comment = |kind: &str| -> BTreeMap<&str, &str> {
        let prefix = format!("# {kind} ");
        text.lines()
            .filter_map(|line| line.strip_prefix(prefix.as_str())?.split_once(' '))
            .collect()
    };
    let (helps, types) = (comment("HELP"), comment("TYPE"));
    let samples: BTreeSet<&str> = text
        .lines()
        .filter(|line| !line.starts_with('#') && !line.is_empty())
        .map(|line| line.split(['{', ' ']).next().unwrap_or_default())
        .collect();
    let families: BTreeSet<&str> = samples.iter().map(|s| family(s, &types)).collect();
    assert!(families.len() >= 13, "{families:?}\n{text}");
    for family in &families {
        assert!(types.contains_key(family), "{family} has no TYPE line:\n{text}");
        let help = helps.get(family).copied().unwrap_or_default();
        assert!(!help.trim().is_empty(), "{family} has no HELP text:\n{text}");
    }
}
