//! Recording fires: the scheduler leader's batches of fires and missed runs, and executions
//! triggered outside the schedule (run-now, external triggers).

use std::collections::HashSet;

use baton_core::job::{
    FiresRecorded, MissedFires, NewFire, RecordFiresParams, TriggerOutcome, TriggerParams,
};
use baton_core::{Error, ExecutionStatus, FireKey, JobName, Result};

use super::rows::ExecutionRow;
use super::{Inner, definitions, not_found, tokens};
use crate::error::from_sqlx;
use crate::json::{Cell, Rows};
use crate::tx;

/// Records fires and missed runs in one transaction: one statement checks that every job is
/// registered, one inserts every missed run and one every fire (`ON CONFLICT DO NOTHING` on
/// the fire's identity, paused and skip-next decided in the statement from the job's row).
/// Every instant is accounted for once: a missed run is left out when a schedule record of
/// its job already holds one of its instants, and a fire when a missed run covers it. The
/// write transaction serialises leaders, so the first to record an instant decides it.
pub(super) async fn record(inner: &Inner, params: RecordFiresParams) -> Result<FiresRecorded> {
    let RecordFiresParams { fires, missed } = params;
    if fires.is_empty() && missed.is_empty() {
        return Ok(FiresRecorded::default());
    }
    missed.iter().try_for_each(check_missed)?;
    let mut seen = HashSet::new();
    let names: Vec<&JobName> = fires
        .iter()
        .map(|fire| &fire.job)
        .chain(missed.iter().map(|run| &run.job))
        .filter(|name| seen.insert(*name))
        .collect();

    let doing = format!("recording {} fires and {} missed runs", fires.len(), missed.len());
    let mut tx = tx::begin(&inner.write, &doing).await?;
    let now = inner.now();
    if let Some(missing) = definitions::first_missing(&mut tx, &names).await? {
        tx::finish_unchanged(tx).await;
        return Err(not_found(&missing));
    }
    let mut inserted = 0u64;
    if !missed.is_empty() {
        let done = sqlx::query(include_str!("../../queries/execution_missed_insert.sql"))
            .bind(missed_json(&missed))
            .bind(now.as_millis())
            .execute(&mut *tx)
            .await
            .map_err(|err| from_sqlx(&doing, err))?;
        inserted += done.rows_affected();
    }
    let mut any_scheduled = false;
    if !fires.is_empty() {
        let statuses: Vec<String> =
            sqlx::query_scalar(include_str!("../../queries/execution_fires_insert.sql"))
                .bind(fires_json(&fires))
                .bind(now.as_millis())
                .fetch_all(&mut *tx)
                .await
                .map_err(|err| from_sqlx(&doing, err))?;
        inserted += statuses.len() as u64;
        any_scheduled = statuses.iter().any(|status| status == ExecutionStatus::Scheduled.as_str());
    }
    if inserted == 0 {
        tx::finish_unchanged(tx).await;
        return Ok(FiresRecorded { inserted });
    }
    tx::commit(tx, &doing).await?;
    if any_scheduled {
        inner.wake_workers();
    }
    Ok(FiresRecorded { inserted })
}

/// Records an execution outside the schedule, or answers the latest attempt of the fire when it
/// needs no new one; one transaction of at most five statements.
pub(super) async fn trigger(inner: &Inner, params: TriggerParams) -> Result<TriggerOutcome> {
    params.check()?;
    let doing = format!("triggering job {}", params.job);
    let mut tx = tx::begin(&inner.write, &doing).await?;
    let now = inner.now();
    if definitions::first_missing(&mut tx, &[&params.job]).await?.is_some() {
        tx::finish_unchanged(tx).await;
        return Err(not_found(&params.job));
    }
    let scheduled_at = params.scheduled_at.unwrap_or(now);
    let fire_key = params.fire_key.clone().unwrap_or_else(|| FireKey::at(scheduled_at));
    let latest: Option<ExecutionRow> =
        sqlx::query_as(include_str!("../../queries/execution_latest_attempt.sql"))
            .bind(params.job.as_str())
            .bind(fire_key.as_str())
            .fetch_optional(&mut *tx)
            .await
            .map_err(|err| from_sqlx(&doing, err))?;
    let (attempt, scheduled_at) = match latest.map(ExecutionRow::into_execution).transpose()? {
        None => (1, scheduled_at),
        Some(latest) if needs_no_attempt(latest.status) => {
            tx::finish_unchanged(tx).await;
            return Ok(TriggerOutcome::Existing(latest));
        }
        // A new attempt of a recorded fire keeps the fire's instant.
        Some(latest) => (latest.attempt.saturating_add(1), latest.scheduled_at),
    };
    let claim = match &params.claim_for {
        Some(node) => Some((node, tokens::issue(&mut tx, 1).await?[0])),
        None => None,
    };
    let status =
        if claim.is_some() { ExecutionStatus::Running } else { ExecutionStatus::Scheduled };
    let row: ExecutionRow = sqlx::query_as(include_str!("../../queries/execution_insert.sql"))
        .bind(params.job.as_str())
        .bind(fire_key.as_str())
        .bind(scheduled_at.as_millis())
        .bind(i64::from(attempt))
        .bind(params.trigger.as_str())
        .bind(status.as_str())
        .bind(now.as_millis())
        .bind(claim.map(|(node, _)| node.as_str()))
        .bind(claim.map(|(_, token)| token.to_store()))
        .bind(now.as_millis())
        .bind(claim.map(|_| now.as_millis()))
        .fetch_one(&mut *tx)
        .await
        .map_err(|err| from_sqlx(&doing, err))?;
    let execution = row.into_execution()?;
    tx::commit(tx, &doing).await?;
    if claim.is_none() {
        inner.wake_workers();
    }
    Ok(TriggerOutcome::Recorded(execution))
}

/// Whether a fire whose latest attempt is in `status` needs no new attempt.
fn needs_no_attempt(status: ExecutionStatus) -> bool {
    matches!(
        status,
        ExecutionStatus::Succeeded | ExecutionStatus::Scheduled | ExecutionStatus::Running
    )
}

fn check_missed(run: &MissedFires) -> Result<()> {
    if run.count == 0 || i64::try_from(run.count).is_err() || run.last < run.first {
        return Err(Error::invalid_input(format!(
            "invalid missed run of job {}: {} fires from {} to {}; expected at least one fire \
             and the last at or after the first",
            run.job, run.count, run.first, run.last
        )));
    }
    Ok(())
}

/// `[[job, fire_key, scheduled_at, due_at], ...]`.
fn fires_json(fires: &[NewFire]) -> String {
    let mut rows = Rows::default();
    for fire in fires {
        let key = FireKey::at(fire.scheduled_at);
        rows.push(&[
            fire.job.as_str().into(),
            key.as_str().into(),
            fire.scheduled_at.as_millis().into(),
            fire.due_at.as_millis().into(),
        ]);
    }
    rows.finish()
}

/// `[[job, fire_key, first, last, count, reason], ...]`; counts were checked to fit.
fn missed_json(missed: &[MissedFires]) -> String {
    let mut rows = Rows::default();
    for run in missed {
        let key = FireKey::at(run.first);
        let count = i64::try_from(run.count).unwrap_or(i64::MAX);
        rows.push(&[
            run.job.as_str().into(),
            key.as_str().into(),
            run.first.as_millis().into(),
            run.last.as_millis().into(),
            Cell::Int(count),
            run.reason.as_str().into(),
        ]);
    }
    rows.finish()
}

#[cfg(test)]
mod tests {
    use baton_core::StoreTime;

    use super::*;

    #[test]
    fn fires_are_keyed_by_their_instant() {
        let fire = NewFire {
            job: JobName::new("report").unwrap(),
            scheduled_at: StoreTime::from_millis(1_500),
            due_at: StoreTime::from_millis(2_000),
        };
        assert_eq!(fires_json(&[fire]), r#"[["report","1970-01-01T00:00:01.500Z",1500,2000]]"#);
    }

    #[test]
    fn malformed_missed_runs_are_refused_naming_the_job() {
        let run = MissedFires {
            job: JobName::new("report").unwrap(),
            first: StoreTime::from_millis(2_000),
            last: StoreTime::from_millis(1_000),
            count: 2,
            reason: "misfire=skip".into(),
        };
        let err = check_missed(&run).unwrap_err();
        assert_eq!(err.kind(), baton_core::ErrorKind::InvalidInput);
        assert!(err.to_string().contains("job report"), "{err}");
        assert!(check_missed(&MissedFires { count: 0, last: run.first, ..run.clone() }).is_err());
        check_missed(&MissedFires { last: run.first, ..run }).unwrap();
    }
}
