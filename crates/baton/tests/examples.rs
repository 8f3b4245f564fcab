//! The runnable examples, run by the test suite so that none rots: each does what its
//! documentation says, on an embedded SQLite file.

#[path = "../examples/cron_job.rs"]
#[allow(dead_code)] // the example's own `main`
mod cron_job;
#[path = "../examples/fenced_sink.rs"]
#[allow(dead_code)]
mod fenced_sink;
#[path = "../examples/partitioned_job.rs"]
#[allow(dead_code)]
mod partitioned_job;

fn sqlite_url(dir: &tempfile::TempDir) -> String {
    format!("sqlite://{}", dir.path().join("baton.db").display())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_fenced_sink_refuses_the_stale_writer() {
    let dir = tempfile::tempdir().unwrap();
    let lines = fenced_sink::run(dir.path()).await.unwrap();
    assert_eq!(lines, ["A, first", "B"], "the stale write left no line");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cron_job_runs_each_fire_once_across_replicas() {
    let dir = tempfile::tempdir().unwrap();
    let runs = cron_job::run(&sqlite_url(&dir), 3).await.unwrap();
    assert!(runs.len() >= 3, "{runs:?}");
    for (at, replicas) in &runs {
        assert_eq!(replicas.len(), 1, "the fire of {at} ran on {replicas:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_partitioned_job_sums_every_slice_once() {
    let dir = tempfile::tempdir().unwrap();
    let (_, total, ran) = partitioned_job::run(&sqlite_url(&dir)).await.unwrap();
    assert_eq!(total, (0..8_000u64).sum::<u64>());
    assert_eq!(ran.iter().map(|(_, partitions)| partitions).sum::<usize>(), 8, "{ran:?}");
}
