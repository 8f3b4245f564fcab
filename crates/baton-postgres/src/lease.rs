//! The PostgreSQL `LeaseStore`.
//!
//! Each acquire, renew, release and forced release is one statement in its own implicit
//! transaction (one commit); expiry is judged with the server's `now()`.

use std::sync::Arc;

use async_trait::async_trait;
use baton_core::job::row::millis;
use baton_core::lease::transition;
use baton_core::page::check_page_size;
use baton_core::{
    AcquireOutcome, AcquireParams, Capabilities, Cursor, Error, ErrorKind, ForceReleaseParams,
    HistoryParams, LeaderChange, Lease, LeaseChanges, LeaseName, LeaseStore, Page, ReleaseParams,
    RenewAllOutcome, RenewAllParams, RenewParams, Result, StoreTime,
};
use sqlx::postgres::PgConnectOptions;

use crate::connections::Connections;
use crate::queries::{
    HISTORY_ALL, HISTORY_OF_LEASE, LEASE_ACQUIRE, LEASE_FORCE_RELEASE, LEASE_GET, LEASE_LIST,
    LEASE_RELEASE, LEASE_RENEW, LEASE_RENEW_ALL, NOW,
};
use crate::{changes, row};

/// Leases stored in `baton_leases`, tokens drawn from `baton_fencing_tokens`, leader changes
/// recorded in `baton_leader_changes`.
///
/// Cheap to clone: clones share the connections. Obtain one from
/// [`PostgresBackend::leases`](crate::PostgresBackend::leases).
#[derive(Clone)]
pub struct PostgresLeaseStore {
    connections: Connections,
    options: Arc<PgConnectOptions>,
}

impl std::fmt::Debug for PostgresLeaseStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PostgresLeaseStore").finish_non_exhaustive()
    }
}

impl PostgresLeaseStore {
    pub(crate) fn new(connections: Connections, options: Arc<PgConnectOptions>) -> Self {
        PostgresLeaseStore { connections, options }
    }

    /// Answers "held" for a lease whose acquisition was refused, from a fresh read; the
    /// acquisition statement's own snapshot may predate the grant that beat it.
    async fn current_holder(&self, name: &LeaseName) -> Result<AcquireOutcome> {
        let found = self
            .connections
            .fetch_optional(sqlx::query(LEASE_GET).bind(name.as_str()), || {
                format!("reading lease {name}")
            })
            .await?;
        if let Some(found) = found {
            let lease = row::lease(&found)?;
            if lease.holder_at(row::now(&found)?).is_some() {
                return Ok(AcquireOutcome::Held(lease));
            }
        }
        Err(Error::new(
            ErrorKind::Conflict,
            format!("lease {name} changed hands while it was being acquired: try again"),
        ))
    }
}

fn lost(params: &RenewParams) -> Error {
    Error::lease_lost(format!(
        "lease {} is no longer held by {} under token {}",
        params.name, params.holder, params.token
    ))
}

#[async_trait]
impl LeaseStore for PostgresLeaseStore {
    async fn acquire(&self, params: AcquireParams) -> Result<AcquireOutcome> {
        let ttl = transition::check_ttl(params.ttl)?;
        let name = &params.name;
        let answer = self
            .connections
            .fetch_optional(
                sqlx::query(LEASE_ACQUIRE)
                    .bind(name.as_str())
                    .bind(params.holder.as_str())
                    .bind(millis(ttl)),
                || format!("acquiring lease {name}"),
            )
            .await?;
        let Some(answer) = answer else {
            return self.current_holder(name).await;
        };
        let lease = row::lease(&answer)?;
        if row::granted(&answer)? {
            return Ok(AcquireOutcome::Acquired { lease, reason: row::acquire_reason(&answer)? });
        }
        if lease.holder_at(row::now(&answer)?).is_some() {
            return Ok(AcquireOutcome::Held(lease));
        }
        self.current_holder(name).await
    }

    async fn renew(&self, params: RenewParams) -> Result<Lease> {
        let renewed = self
            .connections
            .fetch_optional(
                sqlx::query(LEASE_RENEW)
                    .bind(params.name.as_str())
                    .bind(params.holder.as_str())
                    .bind(params.token.to_store()),
                || format!("renewing lease {}", params.name),
            )
            .await?;
        match renewed {
            Some(renewed) => row::lease(&renewed),
            None => Err(lost(&params)),
        }
    }

    async fn renew_all(&self, params: RenewAllParams) -> Result<RenewAllOutcome> {
        if params.leases.is_empty() {
            return Ok(RenewAllOutcome::default());
        }
        let names: Vec<&str> = params.leases.iter().map(|(name, _)| name.as_str()).collect();
        let tokens: Vec<i64> = params.leases.iter().map(|(_, token)| token.to_store()).collect();
        let rows = self
            .connections
            .fetch_all(
                sqlx::query(LEASE_RENEW_ALL)
                    .bind(params.holder.as_str())
                    .bind(&names)
                    .bind(&tokens),
                || format!("renewing the leases of {}", params.holder),
            )
            .await?;
        let renewed = rows.iter().map(row::lease).collect::<Result<Vec<_>>>()?;
        let lost = params
            .leases
            .into_iter()
            .map(|(name, _)| name)
            .filter(|name| !renewed.iter().any(|lease| &lease.name == name))
            .collect();
        Ok(RenewAllOutcome { renewed, lost })
    }

    async fn release(&self, params: ReleaseParams) -> Result<bool> {
        let released = self
            .connections
            .fetch_optional(
                sqlx::query(LEASE_RELEASE)
                    .bind(params.name.as_str())
                    .bind(params.holder.as_str())
                    .bind(params.token.to_store()),
                || format!("releasing lease {}", params.name),
            )
            .await?;
        Ok(released.is_some())
    }

    async fn force_release(&self, params: ForceReleaseParams) -> Result<Option<Lease>> {
        let previous = self
            .connections
            .fetch_optional(sqlx::query(LEASE_FORCE_RELEASE).bind(params.name.as_str()), || {
                format!("force-releasing lease {}", params.name)
            })
            .await?;
        previous.as_ref().map(row::lease).transpose()
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
        let clock = self
            .connections
            .fetch_optional(sqlx::query(NOW), || "reading the PostgreSQL clock".to_string())
            .await?;
        let clock = clock
            .ok_or_else(|| Error::new(ErrorKind::Internal, "the clock query answered no row"))?;
        row::now(&clock)
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities::default().with_change_notification(true)
    }

    async fn subscribe(&self) -> Result<Option<Box<dyn LeaseChanges>>> {
        changes::subscribe(&self.options).await.map(Some)
    }
}
