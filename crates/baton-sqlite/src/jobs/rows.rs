//! Job and execution rows: read with the SQL stores' shared row types, and a definition bound
//! to `job_upsert.sql`.

use baton_core::JobDefinition;
use baton_core::job::row::millis;
use sqlx::Sqlite;
use sqlx::query::QueryAs;
use sqlx::sqlite::SqliteArguments;

pub(crate) use baton_core::job::row::{ExecutionRow, JobRow, executions};

/// Binds a definition to the parameters `?1` to `?19` of `job_upsert.sql`, in column order.
pub(crate) fn bind_definition<'q, O>(
    query: QueryAs<'q, Sqlite, O, SqliteArguments>,
    definition: &'q JobDefinition,
) -> QueryAs<'q, Sqlite, O, SqliteArguments> {
    let policy = &definition.policy;
    query
        .bind(definition.name.as_str())
        .bind(definition.schedule.kind().as_str())
        .bind(definition.schedule.expression())
        .bind(definition.schedule.zone())
        .bind(policy.overlap.as_str())
        .bind(policy.misfire.as_str())
        .bind(millis(policy.misfire_threshold))
        .bind(millis(policy.catch_up_window))
        .bind(i64::from(policy.catch_up_max))
        .bind(policy.starting_deadline.map(millis))
        .bind(millis(policy.jitter))
        .bind(policy.timeout.map(millis))
        .bind(i64::from(policy.retry.max_attempts))
        .bind(millis(policy.retry.initial_backoff))
        .bind(millis(policy.retry.max_backoff))
        .bind(i64::from(policy.retention.keep_succeeded))
        .bind(i64::from(policy.retention.keep_failed))
        .bind(millis(policy.retention.max_age))
}
