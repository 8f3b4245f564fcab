//! `/metrics`: what the stores show at scrape time, the leader changes and failovers between
//! scrapes, and what the runtime records in this process.

mod common;

use std::time::{Duration, Instant};

use axum::http::StatusCode;
use baton::core::{AcquireOutcome, AcquireParams, ReleaseParams, RenewParams};
use baton::{Elector, ElectorConfig, HolderId, LeaseName};
use common::{Fixture, get};

/// The value of the sample whose name and labels are `series`, if it is there.
fn sample(text: &str, series: &str) -> Option<f64> {
    text.lines()
        .find_map(|line| line.strip_prefix(series)?.strip_prefix(' '))
        .map(|value| value.parse().expect("a number"))
}

#[tokio::test]
async fn leaders_nodes_and_partitions_are_read_at_scrape_time() {
    let fixture = Fixture::new().await;
    fixture.lease_held("scheduler", "holder-1").await;
    let node = fixture.node_registered("worker-1").await;
    fixture.node_registered("worker-2").await;
    let batch = fixture.batch("etl", &node).await;
    let router = fixture.admin_router("admin-secret");

    let scrape = get(&router, "/metrics").await;
    assert_eq!(scrape.status, StatusCode::OK);
    let text = &scrape.text;
    let token =
        fixture.backend.leases().get(&"scheduler".parse().unwrap()).await.unwrap().unwrap().token;
    let leader =
        format!("baton_lease_leader{{lease=\"scheduler\",holder=\"holder-1\",token=\"{token}\"}}");
    assert_eq!(sample(text, &leader), Some(1.0), "{text}");
    assert_eq!(sample(text, "baton_lease_leaderless_seconds{lease=\"scheduler\"}"), Some(0.0));
    assert_eq!(sample(text, "baton_nodes{state=\"active\"}"), Some(2.0));
    assert_eq!(sample(text, "baton_nodes{state=\"removed\"}"), Some(0.0));
    assert!(text.contains("baton_node_heartbeat_age_seconds{node=\"worker-1\",state=\"active\"}"));
    let progress = |key: &str| {
        let series = format!(
            "baton_partition_progress{{job=\"etl\",batch=\"{}\",partition=\"{key}\"}}",
            batch.id
        );
        sample(text, &series)
    };
    assert_eq!(
        (progress("p0"), progress("p1"), progress("p2")),
        (Some(1000.0), Some(400.0), Some(0.0))
    );
    let claimed =
        format!("baton_batch_partitions{{job=\"etl\",batch=\"{}\",state=\"claimed\"}}", batch.id);
    assert_eq!(sample(text, &claimed), Some(1.0));
    assert!(text.contains("# TYPE baton_leader_changes_total counter"));
}

#[tokio::test]
async fn leader_changes_and_failovers_are_counted_between_scrapes() {
    let fixture = Fixture::new().await;
    let router = fixture.admin_router("admin-secret");
    let leases = fixture.backend.leases();
    let name: LeaseName = "scheduler".parse().unwrap();
    let ttl = Duration::from_millis(300);
    let params = |holder: &str| AcquireParams {
        name: name.clone(),
        holder: HolderId::new(holder).unwrap(),
        ttl,
    };
    let AcquireOutcome::Acquired { lease: first, .. } = leases.acquire(params("h1")).await.unwrap()
    else {
        panic!("a free lease is granted")
    };

    let scraped = get(&router, "/metrics").await.text;
    assert!(
        !scraped.contains("baton_leader_changes_total{"),
        "changes count from the first scrape"
    );
    // Renewed after the scrape, then left to expire: the failover runs from this renewal.
    let renewal =
        RenewParams { name: name.clone(), holder: first.holder.unwrap(), token: first.token };
    let renewed = leases.renew(renewal).await.unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    let taken = loop {
        if let AcquireOutcome::Acquired { lease, .. } = leases.acquire(params("h2")).await.unwrap()
        {
            break lease;
        }
        assert!(Instant::now() < deadline, "the lease never expired");
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    let crash = taken.acquired_at.saturating_since(renewed.renewed_at).as_secs_f64();
    let holder =
        ReleaseParams { name: name.clone(), holder: taken.holder.unwrap(), token: taken.token };
    assert!(leases.release(holder).await.unwrap());
    let released_at = leases.get(&name).await.unwrap().unwrap().expires_at;
    let AcquireOutcome::Acquired { lease: handed, .. } =
        leases.acquire(params("h3")).await.unwrap()
    else {
        panic!("a released lease is granted")
    };
    let handover = handed.acquired_at.saturating_since(released_at).as_secs_f64();

    let after = get(&router, "/metrics").await.text;
    let changes = |reason: &str| {
        sample(
            &after,
            &format!("baton_leader_changes_total{{lease=\"scheduler\",reason=\"{reason}\"}}"),
        )
    };
    assert_eq!(
        (changes("expired_takeover"), changes("handover")),
        (Some(1.0), Some(1.0)),
        "{after}"
    );
    assert!(after.contains("# TYPE baton_lease_failover_seconds histogram"), "{after}");
    let series =
        |suffix: &str| format!("baton_lease_failover_seconds_{suffix}{{lease=\"scheduler\"}}");
    assert_eq!(sample(&after, &series("count")), Some(2.0), "{after}");
    let sum = sample(&after, &series("sum")).unwrap();
    assert!((sum - (crash + handover)).abs() < 1e-9, "sum {sum}, expected {crash} + {handover}");
    assert!(crash >= ttl.as_secs_f64(), "a crash failover lasts at least the TTL: {crash}");
    let all = "baton_lease_failover_seconds_bucket{lease=\"scheduler\",le=\"+Inf\"}";
    assert_eq!(sample(&after, all), Some(2.0), "{after}");
}

#[tokio::test]
async fn renewals_recorded_by_the_runtime_are_exported() {
    let fixture = Fixture::new().await;
    let router = fixture.admin_router("admin-secret");
    baton_server::metrics::install().expect("the Prometheus recorder");
    let config =
        ElectorConfig::new(HolderId::new("renewer").unwrap()).with_ttl(Duration::from_secs(1));
    let elector = Elector::new(fixture.backend.leases(), config).unwrap();
    let guard = elector.acquire(&"renewed".parse().unwrap()).await.unwrap();

    let deadline = Instant::now() + Duration::from_secs(20);
    let series = "baton_lease_renew_seconds_count{outcome=\"renewed\"}";
    loop {
        let text = get(&router, "/metrics").await.text;
        if sample(&text, series).is_some_and(|count| count >= 1.0) {
            assert!(
                text.contains("baton_lease_renew_seconds_bucket{outcome=\"renewed\",le=\"0.005\"}"),
                "{text}"
            );
            break;
        }
        assert!(Instant::now() < deadline, "no renewal was exported within 20 s:\n{text}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    guard.release().await.unwrap();
    elector.shutdown().await;
}
