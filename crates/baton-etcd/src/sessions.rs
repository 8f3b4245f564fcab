//! The etcd leases that carry baton's leases: one per holder and TTL, granted on the holder's
//! first acquisition through this store and reused by the next ones, so that one keep-alive
//! renews all of them.
//!
//! What is kept here only saves requests: renewals keep alive the etcd lease each holder key is
//! attached to, as etcd reports it. An etcd lease a holder has not used for half its TTL (a
//! contender's, refused meanwhile) is kept alive before it carries a new term, so that the
//! term's holder key is not written on an etcd lease about to expire.
//!
//! Renewal keys are attached to one more etcd lease per store, its retention lease, kept alive
//! with the holders' leases and granted for [`RETENTION`]: etcd deletes them that long after
//! the last renewal through the store, by which time every term they recorded has been taken
//! over or is known to have ended long ago.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use tokio::time::Instant;

use baton_core::lease::transition::MAX_TTL;
use baton_core::{Error, HolderId, Result, TtlRange};
use serde_json::json;

use crate::client::Client;
use crate::wire::LeaseAnswer;

/// How long a renewal key outlives the last renewal through the store that wrote it.
pub(crate) const RETENTION: Duration = Duration::from_secs(3600);

/// The etcd lease of each holder and TTL (in seconds) known to this store, and its retention
/// lease.
#[derive(Default)]
pub(crate) struct Sessions {
    leases: Mutex<HashMap<(HolderId, u64), Known>>,
    retention: Mutex<Option<i64>>,
    /// Held while granting, so that concurrent first acquisitions of a holder share one etcd
    /// lease instead of each granting its own.
    granting: tokio::sync::Mutex<()>,
}

/// An etcd lease of a holder, and until when it is known to have at least half its TTL left.
#[derive(Debug, Clone, Copy)]
struct Known {
    id: i64,
    fresh_until: Instant,
}

impl Known {
    /// An etcd lease of `seconds` granted or kept alive by a request sent at `sent`.
    fn alive(id: i64, seconds: u64, sent: Instant) -> Known {
        Known { id, fresh_until: sent + Duration::from_secs(seconds) / 2 }
    }
}

/// The TTLs asked of etcd: whole seconds (a server raises those below its minimum to it).
pub(crate) const TTLS: TtlRange = TtlRange::in_whole_seconds(Duration::from_secs(1), MAX_TTL);

/// The TTL in whole seconds, or one line saying why etcd cannot grant it.
pub(crate) fn whole_seconds(ttl: Duration) -> Result<u64> {
    if !TTLS.grants(ttl) {
        return Err(Error::invalid_input(format!(
            "invalid TTL {ttl:?} for etcd: etcd leases last whole seconds; expected a whole \
             number of seconds, at least the server's minimum (2s with etcd's default timing)"
        )));
    }
    Ok(ttl.as_secs())
}

impl Sessions {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<(HolderId, u64), Known>> {
        self.leases.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The etcd leases of `holder` known to this store.
    pub(crate) fn of_holder(&self, holder: &HolderId) -> Vec<i64> {
        self.lock().iter().filter(|((known, _), _)| known == holder).map(|(_, k)| k.id).collect()
    }

    /// Forgets an etcd lease that no longer exists.
    pub(crate) fn forget(&self, id: i64) {
        self.lock().retain(|_, known| known.id != id);
        let mut retention = self.retention.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if *retention == Some(id) {
            *retention = None;
        }
    }

    /// The store's retention lease, granted if it has none.
    pub(crate) async fn retention(&self, client: &Client) -> Result<i64> {
        let known = || *self.retention.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(id) = known() {
            return Ok(id);
        }
        let _granting = self.granting.lock().await;
        if let Some(id) = known() {
            return Ok(id);
        }
        let granted =
            grant(client, RETENTION.as_secs(), "granting the renewals' etcd lease").await?;
        *self.retention.lock().unwrap_or_else(|poisoned| poisoned.into_inner()) = Some(granted.id);
        Ok(granted.id)
    }

    /// The etcd lease of `holder` with a TTL of `seconds`, granted if this store knows none.
    /// With `refresh` (the lease to acquire looks free), one not used for half its TTL is kept
    /// alive first, and granted anew if it expired; without, a refused attempt keeps nothing
    /// alive. A TTL etcd grants otherwise than asked (below its minimum) is revoked and
    /// refused.
    pub(crate) async fn lease_for(
        &self,
        client: &Client,
        holder: &HolderId,
        seconds: u64,
        refresh: bool,
    ) -> Result<i64> {
        let key = (holder.clone(), seconds);
        let known = || self.lock().get(&key).copied();
        let usable = |known: &Known| !refresh || Instant::now() < known.fresh_until;
        if let Some(known) = known().filter(usable) {
            return Ok(known.id);
        }
        let _granting = self.granting.lock().await;
        match known() {
            Some(known) if usable(&known) => return Ok(known.id),
            Some(known) => {
                let sent = Instant::now();
                let answers = client.keep_alive(&[known.id]).await?;
                if answers.first().is_some_and(|answer| answer.ttl > 0) {
                    self.lock().insert(key, Known::alive(known.id, seconds, sent));
                    return Ok(known.id);
                }
                self.forget(known.id);
            }
            None => {}
        }
        let sent = Instant::now();
        let granted = grant(client, seconds, "granting an etcd lease").await?;
        if u64::try_from(granted.ttl) != Ok(seconds) {
            let revoke = json!({ "ID": granted.id.to_string() });
            let revoked: Result<serde_json::Value> =
                client.call("/v3/lease/revoke", &revoke, "revoking an etcd lease").await;
            if let Err(err) = revoked {
                tracing::warn!(%err, "an etcd lease granted with the wrong TTL expires by itself");
            }
            return Err(Error::invalid_input(format!(
                "etcd at {} granted a TTL of {}s for the {seconds}s asked: use a TTL of at least \
                 {}s (the server's minimum lease TTL, from its heartbeat and election timeout)",
                client.endpoint(),
                granted.ttl,
                granted.ttl.max(1)
            )));
        }
        self.lock().insert(key, Known::alive(granted.id, seconds, sent));
        Ok(granted.id)
    }
}

/// Grants an etcd lease of `seconds`.
async fn grant(client: &Client, seconds: u64, action: &str) -> Result<LeaseAnswer> {
    client.call("/v3/lease/grant", &json!({ "TTL": seconds.to_string() }), action).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_whole_seconds_are_granted() {
        assert_eq!(whole_seconds(Duration::from_secs(10)).unwrap(), 10);
        let err = whole_seconds(Duration::from_millis(1500)).unwrap_err();
        assert!(err.to_string().contains("invalid TTL 1.5s"), "{err}");
    }
}
