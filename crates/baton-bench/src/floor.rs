//! The floor: a single-row UPDATE committed on its own, in a loop, on the same store.
//!
//! On PostgreSQL and MySQL each UPDATE is one statement in its own implicit transaction
//! (autocommit); on SQLite each is its own `BEGIN IMMEDIATE` transaction on a connection with
//! the SQLite backend's settings.
//! Each connection updates a row of its own in the scratch table `baton_bench_floor`, which the
//! run creates and drops.

use std::time::{Duration, Instant};

use sqlx::{Connection, MySqlConnection, PgConnection, SqliteConnection};

use crate::commits::CommitCounter;
use crate::statements::{self, SelfCheck};
use crate::target::Target;
use crate::timed::{self, Measured, OpKind, Samples, Window};

/// A connection of the floor, straight to the store.
enum FloorConn {
    Postgres(PgConnection),
    Sqlite(SqliteConnection),
    Mysql(MySqlConnection),
}

/// One statement in each store's dialect.
struct Dialects {
    postgres: &'static str,
    sqlite: &'static str,
    mysql: &'static str,
}

const CREATE: Dialects = Dialects {
    postgres: include_str!("../sql/floor_create.postgres.sql"),
    sqlite: include_str!("../sql/floor_create.sqlite.sql"),
    mysql: include_str!("../sql/floor_create.mysql.sql"),
};
const ADD_ROW: Dialects = Dialects {
    postgres: include_str!("../sql/floor_row.postgres.sql"),
    sqlite: include_str!("../sql/floor_row.sqlite.sql"),
    mysql: include_str!("../sql/floor_row.mysql.sql"),
};
const UPDATE: Dialects = Dialects {
    postgres: include_str!("../sql/floor_update.postgres.sql"),
    sqlite: include_str!("../sql/floor_update.sqlite.sql"),
    mysql: include_str!("../sql/floor_update.mysql.sql"),
};
const DROP: &str = include_str!("../sql/floor_drop.sql");

impl FloorConn {
    async fn open(target: &Target) -> anyhow::Result<Self> {
        Ok(match target {
            Target::Postgres { options } => {
                FloorConn::Postgres(PgConnection::connect_with(options).await?)
            }
            Target::Sqlite { path } => FloorConn::Sqlite(
                SqliteConnection::connect_with(&Target::sqlite_options(path)).await?,
            ),
            Target::Mysql { options } => {
                FloorConn::Mysql(MySqlConnection::connect_with(options).await?)
            }
        })
    }

    /// One floor operation: the row's UPDATE and its commit.
    async fn update(&mut self, id: i32) -> anyhow::Result<()> {
        if let FloorConn::Sqlite(conn) = self {
            let mut tx = conn.begin_with("BEGIN IMMEDIATE").await?;
            sqlx::query(UPDATE.sqlite).bind(id).execute(&mut *tx).await?;
            tx.commit().await?;
            return Ok(());
        }
        self.execute(&UPDATE, Some(id)).await
    }

    /// A transaction around one known statement, for the statement counter's self-check.
    async fn known_transaction(&mut self) -> anyhow::Result<()> {
        const CHECK: &str = include_str!("../sql/self_check.sql");
        match self {
            FloorConn::Postgres(conn) => {
                let mut tx = conn.begin().await?;
                sqlx::query(CHECK).execute(&mut *tx).await?;
                tx.commit().await?;
            }
            FloorConn::Sqlite(conn) => {
                let mut tx = conn.begin_with("BEGIN IMMEDIATE").await?;
                sqlx::query(CHECK).execute(&mut *tx).await?;
                tx.commit().await?;
            }
            FloorConn::Mysql(conn) => {
                let mut tx = conn.begin().await?;
                sqlx::query(CHECK).execute(&mut *tx).await?;
                tx.commit().await?;
            }
        }
        Ok(())
    }

    /// Runs `statement` in this store's dialect on its own, binding `id` when given.
    async fn execute(&mut self, statement: &Dialects, id: Option<i32>) -> anyhow::Result<()> {
        macro_rules! run {
            ($conn:expr, $sql:expr) => {{
                let query = sqlx::query($sql);
                let query = match id {
                    Some(id) => query.bind(id),
                    None => query,
                };
                query.execute(&mut *$conn).await?;
            }};
        }
        match self {
            FloorConn::Postgres(conn) => run!(conn, statement.postgres),
            FloorConn::Sqlite(conn) => run!(conn, statement.sqlite),
            FloorConn::Mysql(conn) => run!(conn, statement.mysql),
        }
        Ok(())
    }

    async fn close(self) -> anyhow::Result<()> {
        match self {
            FloorConn::Postgres(conn) => conn.close().await?,
            FloorConn::Sqlite(conn) => conn.close().await?,
            FloorConn::Mysql(conn) => conn.close().await?,
        }
        Ok(())
    }
}

/// Creates the scratch table with one row for each of `rows` connections.
pub(crate) async fn create(target: &Target, rows: usize) -> anyhow::Result<()> {
    let mut conn = FloorConn::open(target).await?;
    conn.execute(&CREATE, None).await?;
    for id in 0..rows {
        conn.execute(&ADD_ROW, Some(id as i32)).await?;
    }
    conn.close().await
}

/// Drops the scratch table.
pub(crate) async fn drop_table(target: &Target) -> anyhow::Result<()> {
    let mut conn = FloorConn::open(target).await?;
    conn.execute(&Dialects { postgres: DROP, sqlite: DROP, mysql: DROP }, None).await?;
    conn.close().await
}

/// Runs a transaction around one known statement and reports what the statement counter saw.
pub(crate) async fn counter_self_check(target: &Target) -> anyhow::Result<SelfCheck> {
    let mut conn = FloorConn::open(target).await?;
    let (check, ()) = statements::self_check(conn.known_transaction()).await?;
    conn.close().await?;
    Ok(check)
}

/// Runs the floor on `connections` connections for `length`.
pub(crate) async fn measure(
    target: &Target,
    connections: usize,
    length: Duration,
    commits: &mut CommitCounter,
) -> anyhow::Result<Measured> {
    let mark = commits.mark().await?;
    let mut conns = Vec::with_capacity(connections);
    for _ in 0..connections {
        conns.push(FloorConn::open(target).await?);
    }
    let statements_before = statements::count();
    let window = Window::open(length);
    let workers = conns
        .into_iter()
        .enumerate()
        .map(|(id, conn)| tokio::spawn(worker(conn, id as i32, window)))
        .collect();
    let finished = timed::join_all(workers).await?;
    let statements = statements::count() - statements_before;
    let mut parts = Vec::with_capacity(finished.len());
    for (conn, samples) in finished {
        conn.close().await?;
        parts.push(samples);
    }
    let commits = commits.since(&mark).await?;
    Ok(Measured { samples: Samples::new(parts, length), statements, commits })
}

async fn worker(
    mut conn: FloorConn,
    id: i32,
    window: Window,
) -> anyhow::Result<(FloorConn, Vec<timed::Sample>)> {
    let mut samples = Vec::new();
    while window.is_open() {
        let began = Instant::now();
        conn.update(id).await?;
        samples.push(window.sample(OpKind::Update, began));
    }
    Ok((conn, samples))
}
