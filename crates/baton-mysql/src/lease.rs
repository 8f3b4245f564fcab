//! The MySQL `LeaseStore`.
//!
//! Each acquire, renew, release and forced release commits at most once. An acquisition is a
//! short transaction: it raises the name's token counter (locking it, which serializes
//! acquisitions of the name), locks and reads the lease row with the server's time, decides with
//! the pure transitions of `baton_core`, and writes the grant and its history record. A
//! contender refused last time reads the lease first, and a read that finds it held refuses
//! without a transaction. Renew and release are one compare-and-set statement each, decided by
//! its matched-row count; a renewal's answer carries its instant (`LAST_INSERT_ID`), from which
//! and the term this process acquired follows the renewed lease, without reading it back.

use std::sync::Arc;

use async_trait::async_trait;
use baton_core::lease::transition::{self, AcquireDecision};
use baton_core::page::check_page_size;
use baton_core::{
    AcquireOutcome, AcquireParams, Capabilities, Cursor, Error, ErrorKind, FencingToken,
    ForceReleaseParams, HistoryParams, LeaderChange, Lease, LeaseChanges, LeaseName, LeaseStore,
    Page, ReleaseParams, RenewAllOutcome, RenewAllParams, RenewParams, Result, StoreTime,
};
use sqlx::mysql::{MySqlConnectOptions, MySqlRow};
use sqlx::{Connection, MySqlConnection};

use crate::bell::Bells;
use crate::changes::{self, Refusal, Refusals};
use crate::connections::{Connections, MySqlQuery};
use crate::error::query_error;
use crate::queries::{
    HISTORY_ALL, HISTORY_OF_LEASE, LEADER_CHANGE_INSERT, LEASE_FORCE_RELEASE, LEASE_GET,
    LEASE_HELD, LEASE_INSERT, LEASE_LIST, LEASE_LOCK, LEASE_RELEASE, LEASE_RENEW, LEASE_RENEW_ALL,
    LEASE_TAKE, NOW, TOKEN_NEXT, with_pairs,
};
use crate::row::{self, millis};
use crate::terms::Terms;

/// Leases stored in `baton_leases`, tokens drawn from the per-name counters of
/// `baton_fencing_tokens`, leader changes recorded in `baton_leader_changes`.
///
/// Cheap to clone: clones share the connections. Obtain one from
/// [`MysqlBackend::leases`](crate::MysqlBackend::leases).
#[derive(Clone)]
pub struct MysqlLeaseStore {
    connections: Connections,
    options: Arc<MySqlConnectOptions>,
    bells: Bells,
    refusals: Refusals,
    terms: Terms,
}

impl std::fmt::Debug for MysqlLeaseStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MysqlLeaseStore").finish_non_exhaustive()
    }
}

fn lost(params: &RenewParams) -> Error {
    Error::lease_lost(format!(
        "lease {} is no longer held by {} under token {}",
        params.name, params.holder, params.token
    ))
}

/// The instant a renewal statement wrote, which it answers as its `LAST_INSERT_ID`.
fn renewal_instant(answered: u64) -> Result<StoreTime> {
    i64::try_from(answered).map(StoreTime::from_millis).map_err(|_| {
        Error::new(ErrorKind::Internal, format!("a renewal answered the instant {answered}"))
    })
}

/// `statement`, whose `/*pairs*/` takes one (name, token) per lease, bound to the holder and
/// the leases of `params`.
fn for_leases_of<'a>(statement: &str, params: &'a RenewAllParams) -> MySqlQuery<'a> {
    let expanded = with_pairs(statement, params.leases.len());
    let mut query = sqlx::query(sqlx::AssertSqlSafe(expanded)).bind(params.holder.as_str());
    for (name, token) in &params.leases {
        query = query.bind(name.as_str()).bind(token.to_store());
    }
    query
}

/// The server's time, read on `conn`.
pub(crate) async fn server_now(
    conn: &mut MySqlConnection,
) -> std::result::Result<StoreTime, sqlx::Error> {
    let ms: i64 = sqlx::query_scalar(NOW).fetch_one(conn).await?;
    Ok(StoreTime::from_millis(ms))
}

impl MysqlLeaseStore {
    pub(crate) fn new(
        connections: Connections,
        options: Arc<MySqlConnectOptions>,
        bells: Bells,
        refusals: Refusals,
        terms: Terms,
    ) -> Self {
        MysqlLeaseStore { connections, options, bells, refusals, terms }
    }

    /// Decides an acquisition in one transaction; answers the decision and the current row.
    async fn decide(
        &self,
        params: &AcquireParams,
    ) -> std::result::Result<(AcquireDecision, Option<Lease>), Error> {
        let name = params.name.as_str();
        let failed = |err| query_error(format!("acquiring lease {name}"), err);
        let mut conn = self.connections.get().await.map_err(failed)?;
        let mut tx = conn.begin().await.map_err(failed)?;
        let token = sqlx::query(TOKEN_NEXT).bind(name).execute(&mut *tx).await.map_err(failed)?;
        let token = FencingToken::new(token.last_insert_id())?;
        let locked: Option<MySqlRow> =
            sqlx::query(LEASE_LOCK).bind(name).fetch_optional(&mut *tx).await.map_err(failed)?;
        let (current, now) = match &locked {
            Some(found) => (Some(row::lease(found)?), row::now(found)?),
            None => (None, server_now(&mut tx).await.map_err(failed)?),
        };
        let decision = transition::acquire(current.as_ref(), params, now, token);
        let AcquireDecision::Grant { lease, reason, previous_end } = &decision else {
            tx.rollback().await.map_err(failed)?;
            conn.keep();
            return Ok((decision, current));
        };
        let statement = if current.is_some() { LEASE_TAKE } else { LEASE_INSERT };
        let mut write = sqlx::query(statement);
        if current.is_none() {
            write = write.bind(name);
        }
        write = write
            .bind(params.holder.as_str())
            .bind(lease.token.to_store())
            .bind(lease.acquired_at.as_millis())
            .bind(lease.renewed_at.as_millis())
            .bind(lease.expires_at.as_millis())
            .bind(millis(lease.ttl))
            .bind(reason.as_str());
        if current.is_some() {
            write = write.bind(name);
        }
        write.execute(&mut *tx).await.map_err(failed)?;
        sqlx::query(LEADER_CHANGE_INSERT)
            .bind(name)
            .bind(params.holder.as_str())
            .bind(lease.token.to_store())
            .bind(lease.acquired_at.as_millis())
            .bind(reason.as_str())
            .bind(previous_end.map(StoreTime::as_millis))
            .execute(&mut *tx)
            .await
            .map_err(failed)?;
        tx.commit().await.map_err(failed)?;
        conn.keep();
        Ok((decision, current))
    }

    /// The lease `name` if it is held now, read without a transaction: enough to refuse an
    /// acquisition (refusing is always safe), never to grant one.
    async fn held_now(&self, name: &LeaseName) -> Result<Option<Lease>> {
        let read = sqlx::query(LEASE_GET).bind(name.as_str());
        let Some(found) =
            self.connections.fetch_optional(read, || format!("reading lease {name}")).await?
        else {
            return Ok(None);
        };
        let (lease, now) = (row::lease(&found)?, row::now(&found)?);
        Ok(lease.holder_at(now).is_some().then_some(lease))
    }

    /// Refuses an acquisition over `current`, which the refused waiter's wake-up follows.
    fn refuse(&self, current: Lease) -> AcquireOutcome {
        let _ = self.refusals.send(Refusal {
            name: current.name.clone(),
            holder: current.holder.clone(),
            token: current.token,
            ttl: current.ttl,
        });
        AcquireOutcome::Held(current)
    }
}

#[async_trait]
impl LeaseStore for MysqlLeaseStore {
    async fn acquire(&self, params: AcquireParams) -> Result<AcquireOutcome> {
        transition::check_ttl(params.ttl)?;
        if self.terms.was_refused(&params.name)
            && let Some(held) = self.held_now(&params.name).await?
        {
            return Ok(self.refuse(held));
        }
        let (decision, current) = self.decide(&params).await?;
        match decision {
            AcquireDecision::Grant { lease, reason, .. } => {
                self.terms.acquired(&lease);
                self.bells.take(&params.name).await;
                Ok(AcquireOutcome::Acquired { lease, reason })
            }
            AcquireDecision::Held => {
                let current = current.ok_or_else(|| {
                    Error::new(ErrorKind::Internal, "an acquisition was refused over no record")
                })?;
                self.terms.refused(&params.name);
                Ok(self.refuse(current))
            }
        }
    }

    async fn renew(&self, params: RenewParams) -> Result<Lease> {
        let action = || format!("renewing lease {}", params.name);
        let renew = sqlx::query(LEASE_RENEW)
            .bind(params.name.as_str())
            .bind(params.holder.as_str())
            .bind(params.token.to_store());
        let renewed = self.connections.execute(renew, action).await?;
        if renewed.rows_affected() == 1 {
            let at = renewal_instant(renewed.last_insert_id())?;
            if let Some(lease) = self.terms.renewed(&params.name, &params.holder, params.token, at)
            {
                return Ok(lease);
            }
            // A term this process did not acquire: the statement decided, and this reads the
            // renewed record, which only a forced release can have changed since.
            let found = self
                .connections
                .fetch_optional(sqlx::query(LEASE_GET).bind(params.name.as_str()), action);
            if let Some(found) = found.await? {
                let lease = row::lease(&found)?;
                if lease.holder.as_ref() == Some(&params.holder) && lease.token == params.token {
                    self.terms.acquired(&lease);
                    return Ok(lease);
                }
            }
        }
        self.terms.forget(&params.name);
        self.bells.ring(&params.name).await;
        Err(lost(&params))
    }

    async fn renew_all(&self, params: RenewAllParams) -> Result<RenewAllOutcome> {
        if params.leases.is_empty() {
            return Ok(RenewAllOutcome::default());
        }
        let action = || format!("renewing the leases of {}", params.holder);
        let result =
            self.connections.execute(for_leases_of(LEASE_RENEW_ALL, &params), action).await?;
        let all = u64::try_from(params.leases.len()).unwrap_or(u64::MAX);
        if result.rows_affected() == all {
            let at = renewal_instant(result.last_insert_id())?;
            let known: Option<Vec<Lease>> = params
                .leases
                .iter()
                .map(|(name, token)| self.terms.renewed(name, &params.holder, *token, at))
                .collect();
            if let Some(mut renewed) = known {
                renewed.sort_by(|a, b| a.name.cmp(&b.name));
                return Ok(RenewAllOutcome { renewed, lost: Vec::new() });
            }
        }
        // Some were lost, or were not acquired here: read which the holder holds now.
        let rows = self.connections.fetch_all(for_leases_of(LEASE_HELD, &params), action).await?;
        let renewed = rows.iter().map(row::lease).collect::<Result<Vec<_>>>()?;
        renewed.iter().for_each(|lease| self.terms.acquired(lease));
        let lost: Vec<LeaseName> = params
            .leases
            .into_iter()
            .map(|(name, _)| name)
            .filter(|name| !renewed.iter().any(|lease| &lease.name == name))
            .collect();
        for name in &lost {
            self.terms.forget(name);
            self.bells.ring(name).await;
        }
        Ok(RenewAllOutcome { renewed, lost })
    }

    async fn release(&self, params: ReleaseParams) -> Result<bool> {
        let release = sqlx::query(LEASE_RELEASE)
            .bind(params.name.as_str())
            .bind(params.holder.as_str())
            .bind(params.token.to_store());
        let action = || format!("releasing lease {}", params.name);
        let released = self.connections.execute(release, action).await?;
        self.terms.forget(&params.name);
        self.bells.ring(&params.name).await;
        Ok(released.rows_affected() == 1)
    }

    async fn force_release(&self, params: ForceReleaseParams) -> Result<Option<Lease>> {
        let name = params.name.as_str();
        let failed = |err| query_error(format!("force-releasing lease {name}"), err);
        let mut conn = self.connections.get().await.map_err(failed)?;
        let mut tx = conn.begin().await.map_err(failed)?;
        let locked: Option<MySqlRow> =
            sqlx::query(LEASE_LOCK).bind(name).fetch_optional(&mut *tx).await.map_err(failed)?;
        let previous = match &locked {
            Some(found) => Some((row::lease(found)?, row::now(found)?)),
            None => None,
        };
        let Some((previous, now)) = previous.filter(|(lease, now)| lease.holder_at(*now).is_some())
        else {
            tx.rollback().await.map_err(failed)?;
            conn.keep();
            return Ok(None);
        };
        sqlx::query(LEASE_FORCE_RELEASE)
            .bind(now.as_millis())
            .bind(name)
            .execute(&mut *tx)
            .await
            .map_err(failed)?;
        tx.commit().await.map_err(failed)?;
        conn.keep();
        self.terms.forget(&params.name);
        self.bells.ring(&params.name).await;
        Ok(Some(previous))
    }

    async fn get(&self, name: &LeaseName) -> Result<Option<Lease>> {
        let found = self
            .connections
            .fetch_optional(sqlx::query(LEASE_GET).bind(name.as_str()), || {
                format!("reading lease {name}")
            })
            .await?;
        found.as_ref().map(row::lease).transpose()
    }

    async fn list(&self) -> Result<Vec<Lease>> {
        let rows = self
            .connections
            .fetch_all(sqlx::query(LEASE_LIST), || "listing leases".to_string())
            .await?;
        rows.iter().map(row::lease).collect()
    }

    async fn history(&self, params: HistoryParams) -> Result<Page<LeaderChange>> {
        let limit = check_page_size(params.limit)? as usize;
        let after = params.after.map_or(0, Cursor::last_id);
        let fetch = i64::try_from(limit + 1).unwrap_or(i64::MAX);
        let query = match &params.lease {
            Some(lease) => sqlx::query(HISTORY_OF_LEASE).bind(lease.as_str()).bind(after),
            None => sqlx::query(HISTORY_ALL).bind(after),
        };
        let rows = self
            .connections
            .fetch_all(query.bind(fetch), || "reading the leader-change history".to_string())
            .await?;
        let items = rows.iter().map(row::leader_change).collect::<Result<Vec<_>>>()?;
        Ok(Page::from_fetched(items, limit as u32, |item| item.id))
    }

    async fn now(&self) -> Result<StoreTime> {
        let failed = |err| query_error("reading the MySQL clock", err);
        let mut conn = self.connections.get().await.map_err(failed)?;
        let now = server_now(&mut conn).await;
        conn.finish(now).map_err(failed)
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities::default().with_change_notification(true)
    }

    async fn subscribe(&self) -> Result<Option<Box<dyn LeaseChanges>>> {
        changes::subscribe(&self.options, &self.refusals).await.map(Some)
    }
}
