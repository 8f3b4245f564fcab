//! Job and execution rows: read with the SQL stores' shared row types, and a definition bound
//! to `job_upsert.sql`.

use baton_core::JobDefinition;
use sqlx::MySql;
use sqlx::mysql::MySqlArguments;
use sqlx::query::Query;

use crate::row::millis;

pub(super) use baton_core::job::row::{ExecutionRow, JobRow, executions, job_name};

/// Binds a definition to the first eighteen parameters of `job_upsert.sql`, in column order.
pub(super) fn bind_definition<'q>(
    query: Query<'q, MySql, MySqlArguments>,
    definition: &'q JobDefinition,
) -> Query<'q, MySql, MySqlArguments> {
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
