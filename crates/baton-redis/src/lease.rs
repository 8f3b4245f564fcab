//! The Redis `LeaseStore`: every write is one Lua script call, judged on the server's clock.

use async_trait::async_trait;
use baton_core::lease::transition;
use baton_core::{
    AcquireOutcome, AcquireParams, Capabilities, Error, ForceReleaseParams, HistoryParams,
    LeaderChange, Lease, LeaseChanges, LeaseName, LeaseStore, Page, ReleaseParams, RenewAllOutcome,
    RenewAllParams, RenewParams, Result, StoreTime,
};

use crate::error::malformed;
use crate::keys::{INDEX, LeaseKeys};
use crate::record;
use crate::scripts::{Script, ScriptCall};
use crate::store::{Inner, RedisLeaseStore};
use crate::{changes, history};

impl Inner {
    /// Runs a lease script whose answer is flat values.
    async fn run(
        &self,
        script: Script,
        call: ScriptCall<'_>,
        action: String,
    ) -> Result<Vec<Option<String>>> {
        self.scripts.run(&self.link, script, call, action).await
    }
}

/// The record a script answered, or `None` for an empty answer.
fn answered_record(name: &LeaseName, values: Vec<Option<String>>) -> Result<Option<Lease>> {
    match values.is_empty() {
        true => Ok(None),
        false => record::lease(name, values),
    }
}

/// Splits the acquire script's answer into its outcome, reason and record.
fn acquire_outcome(name: &LeaseName, values: Vec<Option<String>>) -> Result<AcquireOutcome> {
    let mut values = values.into_iter();
    let (status, reason) = (values.next().flatten(), values.next().flatten());
    let lease = record::lease(name, values.collect())?
        .ok_or_else(|| malformed(format!("no record for lease {name}")))?;
    match (status.as_deref(), reason) {
        (Some("acquired"), Some(reason)) => {
            Ok(AcquireOutcome::Acquired { lease, reason: record::reason(&reason)? })
        }
        (Some("held"), _) => Ok(AcquireOutcome::Held(lease)),
        (status, _) => Err(malformed(format!("acquisition status {status:?} for lease {name}"))),
    }
}

#[async_trait]
impl LeaseStore for RedisLeaseStore {
    async fn acquire(&self, params: AcquireParams) -> Result<AcquireOutcome> {
        let ttl = transition::check_ttl(params.ttl)?;
        let name = &params.name;
        let keys = LeaseKeys::of(name);
        let mut index = redis::cmd("ZADD");
        index.arg(INDEX).arg("NX").arg(0).arg(name.as_str());
        let call = ScriptCall {
            before: &[index],
            keys: &[keys.record, keys.token, keys.history, keys.waiters],
            args: &[
                params.holder.to_string(),
                ttl.as_millis().to_string(),
                self.inner.history_length.to_string(),
            ],
        };
        let answer =
            self.inner.run(Script::Acquire, call, format!("acquiring lease {name}")).await?;
        acquire_outcome(name, answer)
    }

    async fn renew(&self, params: RenewParams) -> Result<Lease> {
        let name = &params.name;
        let call = ScriptCall {
            before: &[],
            keys: &[LeaseKeys::of(name).record],
            args: &[params.holder.to_string(), params.token.to_string()],
        };
        let answer = self.inner.run(Script::Renew, call, format!("renewing lease {name}")).await?;
        answered_record(name, answer)?.ok_or_else(|| {
            Error::lease_lost(format!(
                "lease {name} is no longer held by {} under token {}",
                params.holder, params.token
            ))
        })
    }

    async fn renew_all(&self, params: RenewAllParams) -> Result<RenewAllOutcome> {
        if params.leases.is_empty() {
            return Ok(RenewAllOutcome::default());
        }
        let keys: Vec<String> =
            params.leases.iter().map(|(name, _)| LeaseKeys::of(name).record).collect();
        let args: Vec<String> = std::iter::once(params.holder.to_string())
            .chain(params.leases.iter().map(|(_, token)| token.to_string()))
            .collect();
        let call = ScriptCall { before: &[], keys: &keys, args: &args };
        let action = format!("renewing the leases of {}", params.holder);
        let records = record::records(self.inner.run(Script::RenewAll, call, action).await?)?;
        if records.len() != params.leases.len() {
            return Err(malformed(format!(
                "{} records renewing {} leases",
                records.len(),
                keys.len()
            )));
        }
        let mut outcome = RenewAllOutcome::default();
        for ((name, _), fields) in params.leases.into_iter().zip(records) {
            match record::lease(&name, fields)? {
                Some(lease) => outcome.renewed.push(lease),
                None => outcome.lost.push(name),
            }
        }
        Ok(outcome)
    }

    async fn release(&self, params: ReleaseParams) -> Result<bool> {
        let name = &params.name;
        let keys = LeaseKeys::of(name);
        let call = ScriptCall {
            before: &[],
            keys: &[keys.record, keys.waiters],
            args: &[
                params.holder.to_string(),
                params.token.to_string(),
                self.inner.channel.clone(),
                name.to_string(),
            ],
        };
        let action = format!("releasing lease {name}");
        let released: i64 =
            self.inner.scripts.run(&self.inner.link, Script::Release, call, action).await?;
        Ok(released == 1)
    }

    async fn force_release(&self, params: ForceReleaseParams) -> Result<Option<Lease>> {
        let name = &params.name;
        let keys = LeaseKeys::of(name);
        let call = ScriptCall {
            before: &[],
            keys: &[keys.record, keys.waiters],
            args: &[self.inner.channel.clone(), name.to_string()],
        };
        let action = format!("force-releasing lease {name}");
        answered_record(name, self.inner.run(Script::ForceRelease, call, action).await?)
    }

    async fn get(&self, name: &LeaseName) -> Result<Option<Lease>> {
        self.inner.get(name).await
    }

    async fn list(&self) -> Result<Vec<Lease>> {
        self.inner.list().await
    }

    async fn history(&self, params: HistoryParams) -> Result<Page<LeaderChange>> {
        history::read(&self.inner, params).await
    }

    async fn now(&self) -> Result<StoreTime> {
        self.inner.now().await
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities::default().with_change_notification(true)
    }

    async fn subscribe(&self) -> Result<Option<Box<dyn LeaseChanges>>> {
        changes::subscribe(&self.inner).await.map(Some)
    }
}
