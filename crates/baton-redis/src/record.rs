//! Reading lease records and leader changes as Redis stores them.
//!
//! A record is a hash whose fields the scripts answer as seven values in the order of
//! [`FIELDS`] (`lua/prelude.lua` keeps the same list); instants and the TTL are milliseconds.

use std::time::Duration;

use baton_core::{
    ChangeReason, FencingToken, HolderId, LeaderChange, Lease, LeaseName, ReleaseKind, Result,
    StoreTime,
};

use crate::error::malformed;

/// The fields of a lease record, in the order the scripts answer them.
pub(crate) const FIELDS: [&str; 7] =
    ["holder", "token", "acquired_at", "renewed_at", "expires_at", "ttl", "released"];

/// Splits a flat answer into records of seven values each.
pub(crate) fn records(values: Vec<Option<String>>) -> Result<Vec<Vec<Option<String>>>> {
    if !values.len().is_multiple_of(FIELDS.len()) {
        return Err(malformed(format!("{} values for lease records of 7", values.len())));
    }
    Ok(values.chunks(FIELDS.len()).map(<[_]>::to_vec).collect())
}

/// The lease `name` from its record's seven values (`None` where a field is missing), or `None`
/// if there is no record (no token).
pub(crate) fn lease(name: &LeaseName, values: Vec<Option<String>>) -> Result<Option<Lease>> {
    let fields = <[Option<String>; 7]>::try_from(values).map_err(|values| {
        malformed(format!("{} values for the record of lease {name}", values.len()))
    })?;
    let [holder, token, acquired_at, renewed_at, expires_at, ttl, released] = fields;
    let Some(token) = token else {
        return Ok(None);
    };
    let bad = |field: &str, value: &str| {
        malformed(format!("lease {name} has {field} {value:?} in its Redis record"))
    };
    let instant = |field: &str, value: Option<String>| -> Result<StoreTime> {
        let value = value.unwrap_or_default();
        value.parse().map(StoreTime::from_millis).map_err(|_| bad(field, &value))
    };
    let ttl_ms = ttl.unwrap_or_default();
    let holder = holder.map(|holder| HolderId::new(&holder).map_err(|_| bad("holder", &holder)));
    let released =
        released.map(|kind| ReleaseKind::parse(&kind).ok_or_else(|| bad("released", &kind)));
    Ok(Some(Lease {
        name: name.clone(),
        holder: holder.transpose()?,
        token: token.parse::<FencingToken>().map_err(|_| bad("token", &token))?,
        acquired_at: instant("acquired_at", acquired_at)?,
        renewed_at: instant("renewed_at", renewed_at)?,
        expires_at: instant("expires_at", expires_at)?,
        ttl: ttl_ms.parse().map(Duration::from_millis).map_err(|_| bad("ttl", &ttl_ms))?,
        released: released.transpose()?,
    }))
}

/// A reason as the acquire script names it.
pub(crate) fn reason(text: &str) -> Result<ChangeReason> {
    ChangeReason::parse(text).ok_or_else(|| malformed(format!("acquisition reason {text:?}")))
}

/// One entry of a lease's history stream: id `<token>-0` and the fields holder, reason, at and
/// (after a previous term) ended.
pub(crate) fn leader_change(
    lease: &LeaseName,
    id: &str,
    fields: &[(String, String)],
) -> Result<LeaderChange> {
    let bad = || malformed(format!("history entry {id} of lease {lease}"));
    let field = |name: &str| fields.iter().find(|(key, _)| key == name).map(|(_, value)| value);
    let token: FencingToken = id.strip_suffix("-0").ok_or_else(bad)?.parse().map_err(|_| bad())?;
    let holder = field("holder").and_then(|holder| HolderId::new(holder).ok()).ok_or_else(bad)?;
    let reason = field("reason").and_then(|reason| ChangeReason::parse(reason)).ok_or_else(bad)?;
    let at = field("at").and_then(|at| at.parse().ok()).ok_or_else(bad)?;
    let ended = field("ended").map(|ended| ended.parse().map_err(|_| bad())).transpose()?;
    Ok(LeaderChange {
        id: token.to_store(),
        lease: lease.clone(),
        holder,
        token,
        at: StoreTime::from_millis(at),
        reason,
        previous_end: ended.map(StoreTime::from_millis),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(list: &[Option<&str>]) -> Vec<Option<String>> {
        list.iter().map(|value| value.map(str::to_string)).collect()
    }

    #[test]
    fn a_released_record_reads_back_without_holder() {
        let name = LeaseName::new("job").unwrap();
        let flat = values(&[
            None,
            Some("17"),
            Some("1000"),
            Some("1500"),
            Some("1600"),
            Some("30000"),
            Some("graceful"),
        ]);
        let [fields] = <[_; 1]>::try_from(records(flat).unwrap()).unwrap();
        let lease = lease(&name, fields).unwrap().unwrap();
        assert_eq!(lease.holder, None);
        assert_eq!(lease.token.get(), 17);
        assert_eq!(lease.ttl, Duration::from_secs(30));
        assert_eq!(lease.released, Some(ReleaseKind::Graceful));
        assert_eq!(lease.state_at(StoreTime::from_millis(2000)), "graceful");
    }

    #[test]
    fn a_missing_record_is_none_and_a_damaged_one_an_error() {
        let name = LeaseName::new("job").unwrap();
        assert_eq!(lease(&name, vec![None; 7]).unwrap(), None);
        let mut damaged = vec![None; 7];
        damaged[1] = Some("0".into());
        let err = lease(&name, damaged).unwrap_err();
        assert_eq!(err.kind(), baton_core::ErrorKind::Internal);
        assert!(err.to_string().contains("token \"0\""), "{err}");
        assert!(records(values(&[None; 6])).is_err());
        assert!(lease(&name, vec![None; 6]).is_err());
    }

    #[test]
    fn history_entries_carry_their_token_as_id() {
        let name = LeaseName::new("job").unwrap();
        let fields = [("holder", "a"), ("reason", "handover"), ("at", "1700000000000")]
            .map(|(key, value)| (key.to_string(), value.to_string()));
        let change = leader_change(&name, "1700000000000123-0", &fields).unwrap();
        assert_eq!(change.id, 1_700_000_000_000_123);
        assert_eq!(change.token.get(), 1_700_000_000_000_123);
        assert_eq!(change.reason, ChangeReason::Handover);
        assert!(leader_change(&name, "12-1", &fields).is_err());
    }
}
