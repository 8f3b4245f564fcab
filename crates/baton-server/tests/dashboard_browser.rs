//! The dashboard in a real headless browser: what a person sees on the overview, a job's,
//! a lease's, a batch's and an execution's page, served over a SQLite store with nodes, jobs,
//! executions, leases and a batch; and the admin buttons, used with a token.

mod browser;
mod common;

use std::time::Duration;

use baton::core::cluster::{NodeSweepParams, NodeThresholds};
use baton::core::{AcquireOutcome, AcquireParams, ExecutionStatus, ForceReleaseParams, Schedule};
use baton::{HolderId, LeaseName};
use browser::{dom, serve};
use common::{Fixture, far_future, job_name};

/// Virtual time a page's scripts get before its DOM is read.
const PAGE: Duration = Duration::from_secs(5);
/// Virtual time the harness gets to drive the dashboard.
const HARNESS: Duration = Duration::from_secs(20);

/// Node `id`, registered and then found unreachable by a sweep with a threshold of 2 ms:
/// swept until the store's clock has moved past it.
async fn unreachable_node(fixture: &Fixture, id: &str) {
    fixture.node_registered(id).await;
    let thresholds = NodeThresholds::new(
        Duration::from_millis(1),
        Duration::from_millis(2),
        Duration::from_secs(3600),
    )
    .unwrap();
    let cluster = fixture.backend.cluster();
    let swept = async {
        loop {
            let swept = cluster.node_sweep(NodeSweepParams { thresholds }).await.unwrap();
            if !swept.changes.is_empty() {
                return;
            }
            tokio::task::yield_now().await;
        }
    };
    tokio::time::timeout(Duration::from_secs(10), swept).await.expect("the node was swept");
}

/// Lease `reports`: held by `reporter-a` for 10 ms, taken over by `reporter-b` once it
/// expired (tried until it is), then released by force, so that nobody holds it.
async fn lease_with_a_failover(fixture: &Fixture) {
    let leases = fixture.backend.leases();
    let name = LeaseName::new("reports").unwrap();
    let acquire = |holder: &str, ttl: u64| AcquireParams {
        name: name.clone(),
        holder: HolderId::new(holder).unwrap(),
        ttl: Duration::from_millis(ttl),
    };
    let first = leases.acquire(acquire("reporter-a", 10)).await.unwrap();
    assert!(matches!(first, AcquireOutcome::Acquired { .. }), "{first:?}");
    let taken = async {
        loop {
            if let AcquireOutcome::Acquired { .. } =
                leases.acquire(acquire("reporter-b", 60_000)).await.unwrap()
            {
                return;
            }
            tokio::task::yield_now().await;
        }
    };
    tokio::time::timeout(Duration::from_secs(10), taken).await.expect("the takeover");
    leases.force_release(ForceReleaseParams { name }).await.unwrap().expect("released");
}

#[tokio::test]
async fn a_person_sees_pictures_progress_and_output_and_uses_the_admin_buttons() {
    let fixture = Fixture::new().await;
    unreachable_node(&fixture, "worker-lost").await;
    let worker = fixture.node_registered("worker-east-1").await;
    fixture.node_registered("worker-west-2").await;
    fixture.job("nightly-report", Schedule::once(far_future())).await;
    fixture.job("cache-warmer", Schedule::every(Duration::from_secs(3600)).unwrap()).await;
    let execution = fixture
        .execution(
            "nightly-report",
            "run-1",
            ExecutionStatus::Succeeded,
            Some("42 rows exported\nreport done"),
        )
        .await;
    fixture.execution("nightly-report", "run-2", ExecutionStatus::Failed, None).await;
    fixture.lease_held("scheduler", "worker-east-1").await;
    lease_with_a_failover(&fixture).await;
    let batch = fixture.batch("etl-import", &worker).await;
    let address = serve(&fixture).await;

    let overview = dom(&format!("http://{address}/"), PAGE).await;
    for seen in [
        "worker-east-1",
        "worker-west-2",
        "nightly-report",
        "cache-warmer",
        "scheduler",
        "etl-import",
    ] {
        assert!(overview.contains(seen), "the overview shows {seen}:\n{overview}");
    }
    assert!(overview.contains("2099-01-01 00:00:00 UTC"), "the next fire of nightly-report");
    assert!(overview.contains("class=\"status succeeded\""), "the last outcome");
    let alarms = overview.split("class=\"alarms\"").nth(1).expect("an alarm:\n{overview}");
    assert!(alarms.contains("Lease reports has no holder: released (forced)"), "{alarms}");
    assert!(alarms.contains("Node worker-lost is unreachable"), "{alarms}");
    assert!(!alarms.split("</section>").next().unwrap().contains("scheduler"), "held: no alarm");
    assert!(overview.contains(r#"<svg class="chart rate""#), "the executions per minute");
    assert!(overview.contains(": 1 succeeded</title>"), "a minute's bar:\n{overview}");
    assert!(overview.contains(": 1 failed</title>"), "a minute's bar:\n{overview}");
    assert!(overview.contains(r#"aria-label="leader terms of reports""#), "a lease's strip");

    let lease_page = dom(&format!("http://{address}/leases/reports"), PAGE).await;
    assert!(lease_page.contains(r#"<svg class="chart terms""#), "{lease_page}");
    for (holder, colour) in [("reporter-a", "#4e79a7"), ("reporter-b", "#f28e2b")] {
        let term = format!(r#"class="term" fill="{colour}"><title>{holder}, token"#);
        assert!(lease_page.contains(&term), "{holder}'s term in its colour:\n{lease_page}");
    }
    let failover = r#"class="failover"><title>failover: reporter-a had not renewed the lease for "#;
    let title = lease_page.split(failover).nth(1).expect("the failover before reporter-b");
    assert!(
        !title.starts_with("at least"),
        "the store recorded when reporter-a's term ended, so the failover is exact: {title}"
    );
    assert!(lease_page.contains(r#"class="vacant"><title>no holder since"#), "{lease_page}");
    let takeover = lease_page.split("<td>expired_takeover</td>").nth(1).expect("the takeover row");
    let cells: Vec<&str> = takeover.split("</tr>").next().unwrap().split("<td>").skip(1).collect();
    assert!(
        cells.len() == 2 && cells[1] != "</td>" && !cells[1].starts_with("at least"),
        "the failover in the table, from the record: {cells:?}"
    );

    let job_page = dom(&format!("http://{address}/jobs/nightly-report"), PAGE).await;
    assert!(job_page.contains(r#"<svg class="chart fires""#), "{job_page}");
    for status in ["succeeded", "failed"] {
        let dots = job_page.matches(&format!(r#"class="dot {status}"><title>#"#)).count();
        assert_eq!(dots, 2, "a {status} dot in each plot:\n{job_page}");
    }

    let batch_page = dom(&format!("http://{address}/batches/{}", batch.id), PAGE).await;
    assert!(
        batch_page.contains(r#"<progress data-partition="p1" value="400" max="1000">"#),
        "the progress bar of p1:\n{batch_page}"
    );
    assert!(batch_page.contains(r#"<progress data-partition="p0" value="1000" max="1000">"#));
    assert!(batch_page.contains("1 of 3 partitions final"), "{batch_page}");
    assert!(batch_page.contains("No partition moved between nodes."), "{batch_page}");

    let execution_page = dom(&format!("http://{address}/executions/{}", execution.id), PAGE).await;
    assert!(
        execution_page.contains("42 rows exported\nreport done"),
        "the output of the execution:\n{execution_page}"
    );

    let harness = dom(&format!("http://{address}/harness"), HARNESS).await;
    let log = harness.split("<pre id=\"log\">").nth(1).and_then(|rest| rest.split("</pre>").next());
    let expected = "pause shown without a token: false\n\
        pause shown with the token: true\n\
        flash: Pause: done\n\
        resume offered: true\n\
        force release shown on the next page: true\n\
        flash: Force release: done\n\
        done\n";
    assert_eq!(log, Some(expected), "what the person saw:\n{harness}");
    let job = fixture.backend.jobs().job_get(&job_name("cache-warmer")).await.unwrap().unwrap();
    assert!(job.paused, "the pause button paused the job");
    let scheduler = LeaseName::new("scheduler").unwrap();
    let lease = fixture.backend.leases().get(&scheduler).await.unwrap().unwrap();
    assert_eq!(lease.state_at(fixture.backend.leases().now().await.unwrap()), "forced");
}
