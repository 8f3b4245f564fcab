//! The throwaway MariaDB server: it answers on its own loopback port with its own database, and
//! keeps committed rows across a kill and a restart.

use baton_testkit::servers::MariadbServer;
use sqlx::{Connection, MySqlConnection};

#[tokio::test]
async fn a_killed_server_restarts_with_its_committed_rows() {
    let server = MariadbServer::start();
    assert_ne!(server.port(), 3306, "never the machine's own server");
    let mut conn = MySqlConnection::connect(&server.url()).await.expect("connect");
    let version: String =
        sqlx::query_scalar("SELECT VERSION()").fetch_one(&mut conn).await.unwrap();
    assert!(version.contains("MariaDB"), "{version}");
    assert!(version.starts_with(server.version()), "{version} vs {}", server.version());
    let database: String =
        sqlx::query_scalar("SELECT DATABASE()").fetch_one(&mut conn).await.unwrap();
    assert_eq!(database, MariadbServer::DATABASE);
    sqlx::query("CREATE TABLE kept (id INT PRIMARY KEY) ENGINE=InnoDB")
        .execute(&mut conn)
        .await
        .unwrap();
    sqlx::query("INSERT INTO kept VALUES (7)").execute(&mut conn).await.unwrap();
    drop(conn);

    server.process().kill();
    assert!(!server.process().is_running());
    server.process().restart();

    let mut conn = MySqlConnection::connect(&server.url()).await.expect("connect again");
    let kept: Vec<i32> =
        sqlx::query_scalar("SELECT id FROM kept").fetch_all(&mut conn).await.unwrap();
    assert_eq!(kept, [7]);
}
