//! The fenced sink helper, inside the caller's own transaction.

mod common;

use baton_core::{ErrorKind, FencingToken};
use baton_sqlite::{FenceError, check_and_bump};
use sqlx::sqlite::SqliteConnectOptions;
use sqlx::{Connection, SqliteConnection};

async fn sink(db: &common::TempDb) -> SqliteConnection {
    let options = SqliteConnectOptions::new()
        .filename(db.path())
        .busy_timeout(std::time::Duration::from_secs(10));
    let mut conn = SqliteConnection::connect_with(&options).await.expect("connect");
    sqlx::query("CREATE TABLE ledger (entry TEXT NOT NULL)").execute(&mut conn).await.unwrap();
    conn
}

async fn fenced_write(
    conn: &mut SqliteConnection,
    token: u64,
    entry: &str,
) -> Result<(), FenceError> {
    let mut tx = conn.begin_with("BEGIN IMMEDIATE").await.expect("begin");
    sqlx::query("INSERT INTO ledger (entry) VALUES (?1)")
        .bind(entry)
        .execute(&mut *tx)
        .await
        .unwrap();
    check_and_bump(&mut tx, "ledger", FencingToken::new(token).unwrap()).await?;
    tx.commit().await.expect("commit");
    Ok(())
}

async fn entries(conn: &mut SqliteConnection) -> Vec<String> {
    sqlx::query_scalar("SELECT entry FROM ledger ORDER BY rowid").fetch_all(conn).await.unwrap()
}

#[tokio::test]
async fn stale_token_is_rejected_and_its_writes_roll_back() {
    let db = common::TempDb::new();
    let _backend = db.open().await;
    let mut conn = sink(&db).await;

    fenced_write(&mut conn, 5, "first under 5").await.expect("token 5 accepted");
    let err = fenced_write(&mut conn, 4, "stale under 4").await.expect_err("token 4 is stale");
    match &err {
        FenceError::Stale { resource, presented, current } => {
            assert_eq!(resource, "ledger");
            assert_eq!(presented.get(), 4);
            assert_eq!(current.get(), 5);
        }
        other => panic!("expected a stale token, got {other:?}"),
    }
    assert_eq!(err.kind(), ErrorKind::LeaseLost);
    assert!(err.to_string().contains("token 4 is older than the fence at token 5"), "{err}");
    fenced_write(&mut conn, 5, "second under 5").await.expect("an equal token is accepted");
    fenced_write(&mut conn, 7, "under 7").await.expect("a higher token is accepted");

    assert_eq!(entries(&mut conn).await, ["first under 5", "second under 5", "under 7"]);
    let fence: i64 = sqlx::query_scalar("SELECT token FROM baton_fences WHERE resource = 'ledger'")
        .fetch_one(&mut conn)
        .await
        .unwrap();
    assert_eq!(fence, 7);
}

#[tokio::test]
async fn a_check_outside_a_transaction_is_refused() {
    let db = common::TempDb::new();
    let _backend = db.open().await;
    let mut conn = sink(&db).await;
    let err = check_and_bump(&mut conn, "ledger", FencingToken::new(1).unwrap()).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidInput, "{err}");
    let fences: i64 =
        sqlx::query_scalar("SELECT count(*) FROM baton_fences").fetch_one(&mut conn).await.unwrap();
    assert_eq!(fences, 0);
}
