//! The dashboard over a long history: every page answers, and the newest executions come
//! first. How fast they render is measured by `baton bench dashboard`, not here.

mod common;

use axum::http::StatusCode;
use baton::StoreTime;
use baton::core::Schedule;
use baton::core::job::{NewFire, RecordFiresParams};
use common::{Fixture, far_future, get, job_name};

/// Executions recorded before the pages are timed.
const HISTORY: i64 = 10_000;
/// Jobs they belong to.
const JOBS: i64 = 10;

#[tokio::test]
async fn pages_answer_over_ten_thousand_executions_newest_first() {
    let fixture = Fixture::new().await;
    for job in 0..JOBS {
        fixture.job(&format!("job-{job}"), Schedule::once(far_future())).await;
    }
    let store = fixture.backend.jobs();
    let start = StoreTime::parse("2026-01-01T00:00:00Z").unwrap().as_millis();
    for chunk in 0..HISTORY / 1000 {
        let fires = (chunk * 1000..(chunk + 1) * 1000)
            .map(|i| {
                let at = StoreTime::from_millis(start + i * 60_000);
                NewFire {
                    job: job_name(&format!("job-{}", i % JOBS)),
                    scheduled_at: at,
                    due_at: at,
                }
            })
            .collect();
        store.record_fires(RecordFiresParams { fires, missed: Vec::new() }).await.unwrap();
    }
    let router = fixture.admin_router("admin-secret");
    let pages = [
        "/",
        "/executions",
        "/executions?job=job-3",
        "/executions?status=scheduled",
        "/jobs/job-7",
        "/api/v1/jobs",
    ];
    for page in pages {
        assert_eq!(get(&router, page).await.status, StatusCode::OK, "{page}");
    }
    let overview = get(&router, "/").await.text;
    assert!(
        overview.contains("not every execution of this minute was read"),
        "10,000 executions recorded this minute are more than the picture reads"
    );
    let newest = get(&router, "/executions").await.text;
    assert!(newest.contains(">10000</a>"), "the newest execution comes first");
}
