//! Opening, migrating, and the errors a misconfigured database produces.

mod common;

use baton_core::{ErrorKind, JobStore, LeaseName, LeaseStore};
use baton_sqlite::SqliteBackend;
use sqlx::Connection;

#[tokio::test]
async fn in_memory_urls_are_refused_with_the_reason() {
    let err = SqliteBackend::connect("sqlite::memory:").await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidInput);
    assert!(err.to_string().contains("in-memory databases are not supported"), "{err}");
}

#[tokio::test]
async fn an_unopenable_path_is_named_in_one_line() {
    let db = common::TempDb::new();
    let missing = db.path().join("no-such-dir").join("baton.db");
    let err = SqliteBackend::connect(&format!("sqlite://{}", missing.display())).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Unavailable, "{err}");
    let message = err.to_string();
    assert!(message.contains(&missing.display().to_string()), "{message}");
    assert!(!message.contains('\n'), "{message}");
}

#[tokio::test]
async fn a_file_that_is_not_a_database_is_refused() {
    let db = common::TempDb::new();
    std::fs::write(db.path(), vec![b'x'; 4096]).unwrap();
    let err = SqliteBackend::connect(&db.url()).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Unavailable, "{err}");
    assert!(err.to_string().contains(&db.path().display().to_string()), "{err}");
}

#[tokio::test]
async fn an_unmigrated_database_asks_for_baton_migrate() {
    let db = common::TempDb::new();
    let backend = SqliteBackend::connect(&db.url()).await.unwrap();
    let err = backend.leases().get(&LeaseName::new("x").unwrap()).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Schema, "{err}");
    assert!(err.to_string().contains("baton migrate"), "{err}");
}

#[tokio::test]
async fn migrations_are_idempotent_and_recorded_in_a_prefixed_table() {
    let db = common::TempDb::new();
    let backend = db.open().await;
    backend.migrate().await.expect("a second run is a no-op");
    db.open().await;
    assert!(backend.leases().list().await.unwrap().is_empty());

    let mut conn = sqlx::SqliteConnection::connect(&db.url()).await.unwrap();
    let tables: Vec<String> =
        sqlx::query_scalar("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
            .fetch_all(&mut conn)
            .await
            .unwrap();
    let ours: Vec<&str> =
        tables.iter().map(String::as_str).filter(|name| !name.starts_with("sqlite_")).collect();
    assert_eq!(
        ours,
        [
            "baton_actions",
            "baton_batches",
            "baton_counters",
            "baton_execution_outputs",
            "baton_executions",
            "baton_fences",
            "baton_jobs",
            "baton_leader_changes",
            "baton_leases",
            "baton_node_changes",
            "baton_nodes",
            "baton_partition_moves",
            "baton_partitions",
            "baton_pruned",
            "baton_schema_migrations"
        ]
    );
    let journal: String =
        sqlx::query_scalar("PRAGMA journal_mode").fetch_one(&mut conn).await.unwrap();
    assert_eq!(journal, "wal");
}

#[tokio::test]
async fn relative_urls_resolve_against_the_working_directory() {
    let db = common::TempDb::new();
    let relative = pathdiff(&db.path());
    let backend = SqliteBackend::connect(&format!("sqlite://{relative}")).await.unwrap();
    assert_eq!(backend.path(), std::fs::canonicalize(db.path()).unwrap());
}

/// `path` relative to the working directory, through as many `..` as needed.
fn pathdiff(path: &std::path::Path) -> String {
    let cwd = std::env::current_dir().unwrap();
    let depth = cwd.components().count() - 1;
    format!("{}{}", "../".repeat(depth), path.strip_prefix("/").unwrap().display())
}

/// The backend's futures can be boxed as `Send` trait objects, as `async_trait` and spawned
/// tasks need.
#[allow(dead_code)]
fn futures_are_send(
    backend: &SqliteBackend,
) -> Vec<std::pin::Pin<Box<dyn Future<Output = ()> + Send + '_>>> {
    vec![
        Box::pin(async move { drop(SqliteBackend::connect("sqlite://x.db").await) }),
        Box::pin(async move { drop(backend.migrate().await) }),
        Box::pin(async move { backend.close().await }),
        Box::pin(async move { drop(backend.leases().subscribe().await) }),
        Box::pin(async move { drop(backend.jobs().subscribe_due().await) }),
    ]
}
