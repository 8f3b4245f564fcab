//! The fenced sink helper (invariant I4) against a throwaway MariaDB server.

use baton_core::{ErrorKind, FencingToken};
use baton_mysql::{FenceError, MysqlBackend, check_and_bump};
use baton_testkit::servers::MariadbServer;
use sqlx::MySqlPool;

fn token(value: u64) -> FencingToken {
    FencingToken::new(value).unwrap()
}

/// Appends an entry to the ledger under the fence, in one transaction.
async fn fenced_write(
    pool: &MySqlPool,
    entry: &str,
    presented: FencingToken,
) -> Result<(), FenceError> {
    let mut tx = pool.begin().await.expect("begin");
    sqlx::query("INSERT INTO ledger (entry) VALUES (?)")
        .bind(entry)
        .execute(&mut *tx)
        .await
        .expect("write");
    check_and_bump(&mut tx, "ledger", presented).await?;
    tx.commit().await.expect("commit");
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stale_token_is_rejected_within_the_writers_transaction() {
    let server = MariadbServer::start();
    let backend = MysqlBackend::connect(&server.url()).await.expect("connect");
    backend.migrate().await.expect("migrate");
    let pool = MySqlPool::connect(&server.url()).await.expect("pool");
    sqlx::query("CREATE TABLE ledger (id BIGINT AUTO_INCREMENT PRIMARY KEY, entry TEXT NOT NULL) ENGINE = InnoDB")
        .execute(&pool)
        .await
        .unwrap();

    fenced_write(&pool, "first by 5", token(5)).await.expect("token 5 is accepted");

    let err = fenced_write(&pool, "stale by 4", token(4)).await.expect_err("token 4 is stale");
    assert_eq!(err.kind(), ErrorKind::LeaseLost);
    match &err {
        FenceError::Stale { resource, presented, current } => {
            assert_eq!(resource, "ledger");
            assert_eq!(*presented, token(4));
            assert_eq!(*current, token(5));
        }
        other => panic!("expected a stale writer, got {other:?}"),
    }
    assert!(err.to_string().contains("token 4"), "{err}");

    fenced_write(&pool, "again by 5", token(5)).await.expect("the same token writes again");
    fenced_write(&pool, "then 6", token(6)).await.expect("a newer token is accepted");
    let err = fenced_write(&pool, "late 5", token(5)).await.expect_err("5 is now stale");
    assert!(matches!(err, FenceError::Stale { current, .. } if current == token(6)));

    let entries: Vec<String> =
        sqlx::query_scalar("SELECT entry FROM ledger ORDER BY id").fetch_all(&pool).await.unwrap();
    assert_eq!(entries, ["first by 5", "again by 5", "then 6"], "stale writes were rolled back");
    let fence: i64 = sqlx::query_scalar("SELECT token FROM baton_fences WHERE resource = 'ledger'")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(fence, 6);
    pool.close().await;
}
