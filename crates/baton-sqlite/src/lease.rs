//! The SQLite `LeaseStore`: the core's pure transitions applied inside `BEGIN IMMEDIATE`
//! transactions.

use std::sync::Arc;

use async_trait::async_trait;
use baton_core::lease::transition::{self, AcquireDecision};
use baton_core::time::{Clock, SystemClock};
use baton_core::{
    AcquireOutcome, AcquireParams, Capabilities, Error, ErrorKind, FencingToken,
    ForceReleaseParams, HistoryParams, LeaderChange, Lease, LeaseChanges, LeaseName, LeaseStore,
    Page, ReleaseParams, RenewAllOutcome, RenewAllParams, RenewParams, Result, StoreTime,
};
use sqlx::SqlitePool;

use crate::error::from_sqlx;
use crate::notify::Notifier;
use crate::row::LeaseRow;
use crate::tx::Writer;
use crate::{history, json, tx};

/// Leases stored in one SQLite file, shared by every process on the host that opens it.
///
/// Each operation is one `BEGIN IMMEDIATE` transaction: read the record, decide with the core's
/// pure transition at the host clock's current instant (read once the write lock is held), write
/// the record and, for a grant, the token counter and the leader-change history, then commit.
/// Failed transactions are never retried automatically.
///
/// Cloning is cheap; clones share the connection pools.
#[derive(Debug, Clone)]
pub struct SqliteLeaseStore {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    write: Writer,
    read: SqlitePool,
    notifier: Notifier,
    clock: SystemClock,
}

impl SqliteLeaseStore {
    pub(crate) fn new(write: Writer, read: SqlitePool, notifier: Notifier) -> Self {
        SqliteLeaseStore { inner: Arc::new(Inner { write, read, notifier, clock: SystemClock }) }
    }

    /// Store time, read once the transaction holds the write lock, so that instants follow the
    /// order of commits.
    fn store_time(&self) -> StoreTime {
        self.inner.clock.now()
    }
}

#[async_trait]
impl LeaseStore for SqliteLeaseStore {
    async fn acquire(&self, params: AcquireParams) -> Result<AcquireOutcome> {
        transition::check_ttl(params.ttl)?;
        let doing = format!("acquiring lease {}", params.name);
        let mut tx = tx::begin(&self.inner.write, &doing).await?;
        let now = self.store_time();
        let current = tx::read_lease(&mut *tx, &params.name).await?;
        let token = tx::next_token(&mut tx, current.as_ref()).await?;
        match (transition::acquire(current.as_ref(), &params, now, token), current) {
            (AcquireDecision::Grant { lease, reason, previous_end }, _) => {
                tx::advance_token(&mut tx, token).await?;
                tx::write_lease(&mut tx, &lease).await?;
                tx::record_change(&mut tx, &lease, reason, previous_end).await?;
                tx::commit(tx, &doing).await?;
                Ok(AcquireOutcome::Acquired { lease, reason })
            }
            (AcquireDecision::Held, Some(current)) => {
                tx::finish_unchanged(tx).await;
                Ok(AcquireOutcome::Held(current))
            }
            (AcquireDecision::Held, None) => Err(Error::new(
                ErrorKind::Internal,
                format!("SQLite store: lease {} reported held without a record", params.name),
            )),
        }
    }

    async fn renew(&self, params: RenewParams) -> Result<Lease> {
        let doing = format!("renewing lease {}", params.name);
        let mut tx = tx::begin(&self.inner.write, &doing).await?;
        let now = self.store_time();
        let current = tx::read_lease(&mut *tx, &params.name).await?;
        match transition::renew(current.as_ref(), &params, now) {
            Ok(renewed) => {
                tx::write_lease(&mut tx, &renewed).await?;
                tx::commit(tx, &doing).await?;
                Ok(renewed)
            }
            Err(lost) => {
                tx::finish_unchanged(tx).await;
                Err(lost)
            }
        }
    }

    async fn renew_all(&self, params: RenewAllParams) -> Result<RenewAllOutcome> {
        let mut outcome = RenewAllOutcome::default();
        if params.leases.is_empty() {
            return Ok(outcome);
        }
        let doing = format!("renewing the leases of {}", params.holder);
        let mut tx = tx::begin(&self.inner.write, &doing).await?;
        let now = self.store_time();
        let rows: Vec<LeaseRow> = sqlx::query_as(include_str!("../queries/lease_renew_all.sql"))
            .bind(now.as_millis())
            .bind(params.holder.as_str())
            .bind(pairs_as_json(&params.leases))
            .fetch_all(&mut *tx)
            .await
            .map_err(|err| from_sqlx(&doing, err))?;
        for row in rows {
            outcome.renewed.push(row.into_lease()?);
        }
        outcome.lost = params
            .leases
            .into_iter()
            .map(|(name, _)| name)
            .filter(|name| !outcome.renewed.iter().any(|lease| &lease.name == name))
            .collect();
        if outcome.renewed.is_empty() {
            tx::finish_unchanged(tx).await;
        } else {
            tx::commit(tx, &doing).await?;
        }
        Ok(outcome)
    }

    async fn release(&self, params: ReleaseParams) -> Result<bool> {
        let doing = format!("releasing lease {}", params.name);
        let mut tx = tx::begin(&self.inner.write, &doing).await?;
        let now = self.store_time();
        let current = tx::read_lease(&mut *tx, &params.name).await?;
        let Some(released) = transition::release(current.as_ref(), &params, now) else {
            tx::finish_unchanged(tx).await;
            return Ok(false);
        };
        tx::write_lease(&mut tx, &released).await?;
        tx::commit(tx, &doing).await?;
        self.inner.notifier.publish(&params.name);
        Ok(true)
    }

    async fn force_release(&self, params: ForceReleaseParams) -> Result<Option<Lease>> {
        let doing = format!("force-releasing lease {}", params.name);
        let mut tx = tx::begin(&self.inner.write, &doing).await?;
        let now = self.store_time();
        let current = tx::read_lease(&mut *tx, &params.name).await?;
        let Some(released) = transition::force_release(current.as_ref(), now) else {
            tx::finish_unchanged(tx).await;
            return Ok(None);
        };
        tx::write_lease(&mut tx, &released).await?;
        tx::commit(tx, &doing).await?;
        self.inner.notifier.publish(&params.name);
        Ok(current)
    }

    async fn get(&self, name: &LeaseName) -> Result<Option<Lease>> {
        tx::read_lease(&self.inner.read, name).await
    }

    async fn list(&self) -> Result<Vec<Lease>> {
        let rows: Vec<LeaseRow> = sqlx::query_as(include_str!("../queries/lease_list.sql"))
            .fetch_all(&self.inner.read)
            .await
            .map_err(|err| from_sqlx("listing leases", err))?;
        rows.into_iter().map(LeaseRow::into_lease).collect()
    }

    async fn history(&self, params: HistoryParams) -> Result<Page<LeaderChange>> {
        history::page(&self.inner.read, params).await
    }

    async fn now(&self) -> Result<StoreTime> {
        Ok(self.store_time())
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities::default().with_change_notification(true)
    }

    async fn subscribe(&self) -> Result<Option<Box<dyn LeaseChanges>>> {
        Ok(Some(Box::new(self.inner.notifier.subscribe()?)))
    }
}

/// The (name, token) pairs as a JSON array of pairs, for `json_each`.
fn pairs_as_json(pairs: &[(LeaseName, FencingToken)]) -> String {
    let mut rows = json::Rows::default();
    for (name, token) in pairs {
        rows.push(&[name.as_str().into(), token.to_store().into()]);
    }
    rows.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_are_escaped_as_json() {
        let pairs = [
            (LeaseName::new("plain").unwrap(), FencingToken::new(3).unwrap()),
            (LeaseName::new(r#"q"uo\te"#).unwrap(), FencingToken::new(4).unwrap()),
        ];
        assert_eq!(pairs_as_json(&pairs), r#"[["plain",3],["q\"uo\\te",4]]"#);
    }
}
