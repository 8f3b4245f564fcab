//! A Lease object as baton reads and writes it: the fields client-go reads and writes
//! (`holderIdentity`, `leaseDurationSeconds`, `acquireTime`, `renewTime`, `leaseTransitions`),
//! plus baton's annotations (the token, how the lease was released, the leader changes).
//!
//! Every write starts from the object as read, so that labels, annotations and spec fields
//! written by others (client-go's `preferredHolder` and `strategy`) are kept.

use std::collections::BTreeMap;
use std::time::Duration;

use baton_core::lease::TermRecord;
use baton_core::{
    ChangeReason, Error, ErrorKind, FencingToken, HolderId, Lease, LeaseName, ReleaseKind, Result,
    StoreTime,
};
use k8s_openapi::api::coordination::v1::{Lease as LeaseObject, LeaseSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{MicroTime, ObjectMeta};
use k8s_openapi::jiff::Timestamp;
use serde::{Deserialize, Serialize};

/// The annotation holding the token of the latest acquisition by baton.
pub(crate) const TOKEN: &str = "baton-rs.github.io/token";
/// The annotation saying how the lease was released: `graceful` or `forced`.
const RELEASED: &str = "baton-rs.github.io/released";
/// The annotation holding the lease's latest leader changes, oldest first, as JSON.
const HISTORY: &str = "baton-rs.github.io/history";
/// The label on every Lease baton writes, by which it lists its leases.
pub(crate) const MANAGED_BY: (&str, &str) = ("app.kubernetes.io/managed-by", "baton");

/// Leader changes kept on each Lease object; older ones are dropped.
pub const HISTORY_LENGTH: usize = 32;

/// The `leaseDurationSeconds` a release writes, as client-go's does, so that an elector that
/// does not read an empty holder as free waits one second, not a whole term.
const RELEASED_DURATION: i32 = 1;

/// One leader change as the history annotation keeps it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Change {
    pub(crate) token: u64,
    pub(crate) holder: String,
    /// Milliseconds since the epoch, on the acquiring holder's clock.
    pub(crate) at: i64,
    pub(crate) reason: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) previous_end: Option<i64>,
}

impl Change {
    /// The change as the store trait reports it; its position is its token.
    pub(crate) fn leader_change(&self, lease: &LeaseName) -> Result<baton_core::LeaderChange> {
        Ok(baton_core::LeaderChange {
            id: i64::try_from(self.token).map_err(|_| malformed(lease.as_str(), "history"))?,
            lease: lease.clone(),
            holder: HolderId::new(&self.holder)
                .map_err(|_| malformed(lease.as_str(), "history"))?,
            token: FencingToken::new(self.token)?,
            at: StoreTime::from_millis(self.at),
            reason: ChangeReason::parse(&self.reason)
                .ok_or_else(|| malformed(lease.as_str(), "history"))?,
            previous_end: self.previous_end.map(StoreTime::from_millis),
        })
    }
}

fn malformed(name: &str, what: &str) -> Error {
    Error::new(
        ErrorKind::Internal,
        format!("Lease {name} has a malformed {what}: not written by baton?"),
    )
}

/// The time a holder writes: its own wall clock, to the millisecond baton keeps.
pub(crate) fn now() -> StoreTime {
    StoreTime::from_millis(Timestamp::now().as_millisecond())
}

fn micro_time(at: StoreTime) -> MicroTime {
    MicroTime(Timestamp::from_millisecond(at.as_millis()).unwrap_or(Timestamp::UNIX_EPOCH))
}

fn store_time(time: Option<&MicroTime>) -> StoreTime {
    StoreTime::from_millis(time.map_or(0, |time| time.0.as_millisecond()))
}

/// A Lease object read from the API server, with what baton makes of it.
#[derive(Debug, Clone)]
pub(crate) struct Record {
    /// The object as read: the basis of the next write.
    pub(crate) object: LeaseObject,
    /// The holder, unless the holder identity is empty (released).
    pub(crate) holder: Option<String>,
    /// The token baton issued last, if it ever acquired this object.
    pub(crate) token: Option<FencingToken>,
    pub(crate) released: Option<ReleaseKind>,
    pub(crate) acquired_at: StoreTime,
    pub(crate) renewed_at: StoreTime,
    /// `leaseDurationSeconds`.
    pub(crate) duration: Duration,
}

impl Record {
    /// Reads what baton needs from an object.
    pub(crate) fn read(object: LeaseObject) -> Result<Record> {
        let name = object.metadata.name.clone().unwrap_or_default();
        let annotations = object.metadata.annotations.as_ref();
        let annotation = |key: &str| annotations.and_then(|all| all.get(key));
        let token = match annotation(TOKEN) {
            Some(text) => Some(
                text.parse()
                    .ok()
                    .and_then(|value| FencingToken::new(value).ok())
                    .ok_or_else(|| malformed(&name, "token annotation"))?,
            ),
            None => None,
        };
        let spec = object.spec.clone().unwrap_or_default();
        let holder = spec.holder_identity.clone().filter(|holder| !holder.is_empty());
        let released = match (&holder, annotation(RELEASED)) {
            (Some(_), _) => None,
            (None, Some(kind)) => Some(
                ReleaseKind::parse(kind).ok_or_else(|| malformed(&name, "release annotation"))?,
            ),
            // Released by an elector that is not baton (client-go clears the holder identity).
            (None, None) => Some(ReleaseKind::Graceful),
        };
        let seconds = spec.lease_duration_seconds.unwrap_or(0).max(0);
        Ok(Record {
            holder,
            token,
            released,
            acquired_at: store_time(spec.acquire_time.as_ref()),
            renewed_at: store_time(spec.renew_time.as_ref()),
            duration: Duration::from_secs(seconds.unsigned_abs().into()),
            object,
        })
    }

    /// The object's `resourceVersion`, which changes with every write.
    pub(crate) fn version(&self) -> &str {
        self.object.metadata.resource_version.as_deref().unwrap_or_default()
    }

    /// The object's `leaseTransitions`.
    fn transitions(&self) -> i32 {
        self.object.spec.as_ref().and_then(|spec| spec.lease_transitions).unwrap_or(0)
    }

    /// The leader changes kept on the object, oldest first.
    pub(crate) fn history(&self) -> Result<Vec<Change>> {
        let annotations = self.object.metadata.annotations.as_ref();
        match annotations.and_then(|all| all.get(HISTORY)) {
            Some(text) => serde_json::from_str(text).map_err(|_| {
                malformed(
                    self.object.metadata.name.as_deref().unwrap_or_default(),
                    "history annotation",
                )
            }),
            None => Ok(Vec::new()),
        }
    }

    /// The lease as the record states it: held until its last renewal plus its duration, or
    /// released at its last write. A Lease that baton never acquired reads with token 1.
    pub(crate) fn lease(&self, name: &LeaseName) -> Result<Lease> {
        let holder = self
            .holder
            .as_deref()
            .map(HolderId::new)
            .transpose()
            .map_err(|_| malformed(name.as_str(), "holder identity"))?;
        let expires_at = match holder {
            Some(_) => self.renewed_at.saturating_add(self.duration),
            None => self.renewed_at,
        };
        Ok(Lease {
            name: name.clone(),
            holder,
            token: self.token.unwrap_or(FencingToken::new(1)?),
            acquired_at: self.acquired_at,
            renewed_at: self.renewed_at,
            expires_at,
            ttl: self.duration,
            released: self.released,
        })
    }
}

impl TermRecord for Record {
    /// Whether `holder` holds the lease under `token` by this record.
    fn held_by(&self, holder: &HolderId, token: FencingToken) -> bool {
        self.holder.as_deref() == Some(holder.as_str()) && self.token == Some(token)
    }

    fn duration(&self) -> Duration {
        self.duration
    }
}

/// What an acquisition writes.
pub(crate) struct Grant<'a> {
    pub(crate) name: &'a str,
    pub(crate) namespace: &'a str,
    pub(crate) holder: &'a HolderId,
    pub(crate) token: FencingToken,
    pub(crate) ttl_seconds: i32,
    pub(crate) now: StoreTime,
    pub(crate) reason: ChangeReason,
    pub(crate) previous_end: Option<StoreTime>,
}

/// The object an acquisition writes over `current` (or creates): the new holder and term, the
/// token, the leader change appended to the history, one more transition if the holder changed.
pub(crate) fn granted(current: Option<&Record>, grant: &Grant<'_>) -> Result<LeaseObject> {
    let mut object =
        current.map_or_else(|| fresh(grant.name, grant.namespace), |record| record.object.clone());
    let mut history = current.map(Record::history).transpose()?.unwrap_or_default();
    history.push(Change {
        token: grant.token.get(),
        holder: grant.holder.to_string(),
        at: grant.now.as_millis(),
        reason: grant.reason.as_str().to_string(),
        previous_end: grant.previous_end.map(StoreTime::as_millis),
    });
    let excess = history.len().saturating_sub(HISTORY_LENGTH);
    history.drain(..excess);
    let transitions = match current {
        Some(record) if record.holder.as_deref() != Some(grant.holder.as_str()) => {
            record.transitions() + 1
        }
        Some(record) => record.transitions(),
        None => 0,
    };
    let annotations = object.metadata.annotations.get_or_insert_with(BTreeMap::new);
    annotations.remove(RELEASED);
    annotations.insert(TOKEN.to_string(), grant.token.to_string());
    annotations.insert(
        HISTORY.to_string(),
        serde_json::to_string(&history)
            .map_err(|err| Error::new(ErrorKind::Internal, err.to_string()))?,
    );
    let spec = object.spec.get_or_insert_with(LeaseSpec::default);
    spec.holder_identity = Some(grant.holder.to_string());
    spec.lease_duration_seconds = Some(grant.ttl_seconds);
    spec.acquire_time = Some(micro_time(grant.now));
    spec.renew_time = Some(micro_time(grant.now));
    spec.lease_transitions = Some(transitions);
    Ok(labelled(object))
}

/// The object a renewal writes: the same term with its own `duration` (whatever another writer
/// left there), renewed at `now`, or a millisecond after the last renewal if the wall clock
/// stepped back, so that the write always changes the object (an unchanged object keeps its
/// `resourceVersion`, and contenders would keep counting). Returns the renewal time written.
pub(crate) fn renewed(
    record: &Record,
    now: StoreTime,
    duration: Duration,
) -> (LeaseObject, StoreTime) {
    let at = now.max(record.renewed_at.saturating_add(Duration::from_millis(1)));
    let mut object = record.object.clone();
    let spec = object.spec.get_or_insert_with(LeaseSpec::default);
    spec.renew_time = Some(micro_time(at));
    spec.lease_duration_seconds = Some(i32::try_from(duration.as_secs()).unwrap_or(i32::MAX));
    (labelled(object), at)
}

/// The object a release writes: the holder identity cleared at `now`, as client-go's release
/// does, and how it was released.
pub(crate) fn released(record: &Record, now: StoreTime, kind: ReleaseKind) -> LeaseObject {
    let mut object = record.object.clone();
    let annotations = object.metadata.annotations.get_or_insert_with(BTreeMap::new);
    annotations.insert(RELEASED.to_string(), kind.as_str().to_string());
    let spec = object.spec.get_or_insert_with(LeaseSpec::default);
    spec.holder_identity = Some(String::new());
    spec.lease_duration_seconds = Some(RELEASED_DURATION);
    spec.renew_time = Some(micro_time(now));
    labelled(object)
}

fn fresh(name: &str, namespace: &str) -> LeaseObject {
    LeaseObject {
        metadata: ObjectMeta {
            name: Some(name.to_string()),
            namespace: Some(namespace.to_string()),
            ..ObjectMeta::default()
        },
        spec: Some(LeaseSpec::default()),
    }
}

/// `object` with baton's label and without server-kept fields a write must not send back.
fn labelled(mut object: LeaseObject) -> LeaseObject {
    object.metadata.managed_fields = None;
    let labels = object.metadata.labels.get_or_insert_with(BTreeMap::new);
    labels.insert(MANAGED_BY.0.to_string(), MANAGED_BY.1.to_string());
    object
}

#[cfg(test)]
mod tests {
    use super::*;

    fn holder(text: &str) -> HolderId {
        HolderId::new(text).unwrap()
    }

    fn grant<'a>(holder: &'a HolderId, token: u64, now: i64) -> Grant<'a> {
        Grant {
            name: "job",
            namespace: "default",
            holder,
            token: FencingToken::new(token).unwrap(),
            ttl_seconds: 10,
            now: StoreTime::from_millis(now),
            reason: ChangeReason::Fresh,
            previous_end: None,
        }
    }

    #[test]
    fn a_grant_writes_the_fields_client_go_reads() {
        let a = holder("a");
        let object = granted(None, &grant(&a, 7, 1_700_000_000_123)).unwrap();
        let json = serde_json::to_value(&object).unwrap();
        assert_eq!(json["spec"]["holderIdentity"], "a");
        assert_eq!(json["spec"]["leaseDurationSeconds"], 10);
        assert_eq!(json["spec"]["leaseTransitions"], 0);
        assert_eq!(json["spec"]["renewTime"], "2023-11-14T22:13:20.123000Z");
        assert_eq!(json["metadata"]["annotations"][TOKEN], "7");
        assert_eq!(json["metadata"]["labels"][MANAGED_BY.0], MANAGED_BY.1);
        let record = Record::read(object).unwrap();
        let lease = record.lease(&LeaseName::new("job").unwrap()).unwrap();
        assert_eq!(lease.renewed_at, StoreTime::from_millis(1_700_000_000_123));
        assert_eq!(lease.expires_at, StoreTime::from_millis(1_700_000_010_123));
    }

    #[test]
    fn transitions_count_changes_of_holder_and_history_keeps_the_latest() {
        let (a, b) = (holder("a"), holder("b"));
        let mut record = Record::read(granted(None, &grant(&a, 1, 0)).unwrap()).unwrap();
        for token in 2..=(HISTORY_LENGTH as u64 + 5) {
            let next = if token % 2 == 0 { &b } else { &a };
            record = Record::read(granted(Some(&record), &grant(next, token, 0)).unwrap()).unwrap();
        }
        assert_eq!(record.transitions(), HISTORY_LENGTH as i32 + 4);
        let history = record.history().unwrap();
        assert_eq!(history.len(), HISTORY_LENGTH);
        assert_eq!(history.last().map(|change| change.token), Some(HISTORY_LENGTH as u64 + 5));
    }

    #[test]
    fn a_release_clears_the_holder_as_client_go_does_and_keeps_foreign_fields() {
        let a = holder("a");
        let mut object = granted(None, &grant(&a, 3, 0)).unwrap();
        object.metadata.annotations.as_mut().unwrap().insert("team".into(), "payments".into());
        object.spec.as_mut().unwrap().preferred_holder = Some("b".into());
        let record = Record::read(object).unwrap();
        let released =
            Record::read(released(&record, StoreTime::from_millis(5_000), ReleaseKind::Forced))
                .unwrap();
        assert_eq!((released.holder.clone(), released.released), (None, Some(ReleaseKind::Forced)));
        assert_eq!(released.token, record.token, "the token stays for the next acquisition");
        let spec = released.object.spec.as_ref().unwrap();
        assert_eq!(
            (spec.holder_identity.as_deref(), spec.lease_duration_seconds),
            (Some(""), Some(1))
        );
        assert_eq!(spec.preferred_holder.as_deref(), Some("b"));
        assert_eq!(released.object.metadata.annotations.as_ref().unwrap()["team"], "payments");
        let lease = released.lease(&LeaseName::new("job").unwrap()).unwrap();
        assert_eq!(lease.expires_at, StoreTime::from_millis(5_000), "released at its last write");
    }

    #[test]
    fn an_empty_holder_without_baton_annotations_is_a_graceful_release() {
        let mut object = fresh("job", "default");
        object.spec.as_mut().unwrap().holder_identity = Some(String::new());
        let record = Record::read(object).unwrap();
        assert_eq!(
            (record.holder, record.released, record.token),
            (None, Some(ReleaseKind::Graceful), None)
        );
    }
}
