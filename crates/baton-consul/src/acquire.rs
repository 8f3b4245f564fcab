//! Acquiring a lease: read its key; if no session holds it, create a session for the new term
//! and acquire the key with it (Consul grants the lock to one session), read back the key's
//! `ModifyIndex` as the token, and write the token and the leader change with the same session.

use std::time::Duration;

use baton_core::{
    AcquireOutcome, AcquireParams, ChangeReason, Error, ErrorKind, FencingToken, LeaseName, Result,
    StoreTime, TtlRange,
};

use crate::client::KvWrite;
use crate::keys;
use crate::reads::read;
use crate::record::{Record, Stored};
use crate::store::Inner;
use crate::terms::Term;

/// The session TTLs Consul accepts: whole seconds from 10 s to 24 h.
pub(crate) const SESSION_TTLS: TtlRange =
    TtlRange::in_whole_seconds(Duration::from_secs(10), Duration::from_secs(24 * 3600));

/// Checks a TTL: whole seconds from 10 s to 24 h, as Consul's sessions take it.
pub(crate) fn check_session_ttl(ttl: Duration) -> Result<Duration> {
    match SESSION_TTLS.grants(ttl) {
        true => Ok(ttl),
        false => Err(Error::invalid_input(format!(
            "invalid TTL {ttl:?} for a Consul lease: a session's TTL is whole seconds from 10s to 24h"
        ))),
    }
}

/// The new term's context: why the lease is free and when the previous term ended.
struct Vacancy<'a> {
    current: Option<&'a Stored>,
    reason: ChangeReason,
    previous_end: Option<StoreTime>,
}

/// Acquires `params.name` if no session holds its key.
pub(crate) async fn acquire(inner: &Inner, params: AcquireParams) -> Result<AcquireOutcome> {
    let ttl = check_session_ttl(params.ttl)?;
    let current = read(inner, &params.name).await?;
    let (reason, previous_end) = match &current {
        None => (ChangeReason::Fresh, None),
        Some(stored) => match stored.vacancy() {
            Some((reason, end)) => (reason, Some(end)),
            None => return Ok(AcquireOutcome::Held(stored.lease(&params.name)?)),
        },
    };
    let vacancy = Vacancy { current: current.as_ref(), reason, previous_end };
    let session_name = format!("baton lease {}", params.name);
    let (session, at) = inner.consul.create_session(&session_name, ttl).await?;
    let granted = grant(inner, &params, &session, at, &vacancy).await;
    let term = match granted {
        Ok(Some(term)) => term,
        Ok(None) => {
            discard(inner, &session).await;
            return lost_race(inner, &params.name).await;
        }
        Err(err) => {
            discard(inner, &session).await;
            return Err(err);
        }
    };
    let lease = term.record.held_lease(&params.name, term.token)?;
    inner.terms.remember(params.name.as_str(), term);
    Ok(AcquireOutcome::Acquired { lease, reason })
}

/// Takes the key with `session` and records the term's token; `None` if another session took
/// it first (or its lock-delay runs).
async fn grant(
    inner: &Inner,
    params: &AcquireParams,
    session: &str,
    at: StoreTime,
    vacancy: &Vacancy<'_>,
) -> Result<Option<Term>> {
    let key = keys::lease_key(&inner.consul.target.prefix, &params.name);
    let previous = vacancy.current.map(|stored| &stored.record);
    let record = Record::granted(previous, &params.holder, params.ttl, at);
    let unknown =
        match inner.consul.write(&key, &record.to_bytes(), KvWrite::Acquire(session)).await {
            Ok((true, _)) => None,
            Ok((false, _)) => return Ok(None),
            Err(err) if err.kind().outcome_unknown() => Some(err),
            Err(err) => return Err(err),
        };
    // The key as the acquisition left it: its ModifyIndex is the token. After an answer that
    // was lost, this read also says whether the acquisition was applied.
    let taken = match read(inner, &params.name).await? {
        Some(stored) if stored.session() == Some(session) => stored,
        Some(stored) if stored.session().is_some() => return Ok(None),
        _ => return Err(unknown.unwrap_or_else(|| changed_hands(&params.name))),
    };
    let token = FencingToken::new(taken.entry.modify_index)?;
    let record = record.with_token(token.get(), vacancy.reason, vacancy.previous_end);
    match inner.consul.write(&key, &record.to_bytes(), KvWrite::Acquire(session)).await {
        Ok((true, _)) => {}
        Ok((false, _)) => return Err(changed_hands(&params.name)),
        Err(err) if err.kind().outcome_unknown() => match read(inner, &params.name).await? {
            Some(stored) if stored.session() == Some(session) && stored.record == record => {}
            _ => return Err(err),
        },
        Err(err) => return Err(err),
    }
    let holder = params.holder.clone();
    Ok(Some(Term { holder, token, session: session.to_string(), record }))
}

/// Destroys a session that took no term (or whose term could not be recorded): the key, if it
/// holds it, is free again. A failure only leaves the session to its TTL.
async fn discard(inner: &Inner, session: &str) {
    if let Err(err) = inner.consul.destroy_session(session).await {
        tracing::debug!(%err, "a session that took no lease is left to its TTL");
    }
}

/// Another contender came first: the lease as it is now, or a conflict if it is free again
/// (or Consul's lock-delay keeps it from every session for now).
async fn lost_race(inner: &Inner, name: &LeaseName) -> Result<AcquireOutcome> {
    match read(inner, name).await? {
        Some(stored) if stored.session().is_some() => Ok(AcquireOutcome::Held(stored.lease(name)?)),
        _ => Err(changed_hands(name)),
    }
}

fn changed_hands(name: &LeaseName) -> Error {
    Error::new(
        ErrorKind::Conflict,
        format!(
            "lease {name} changed hands while it was acquired, or Consul's lock-delay still keeps \
             it from new holders; try again"
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ttls_are_whole_seconds_from_ten_seconds_to_a_day() {
        assert!(check_session_ttl(Duration::from_secs(10)).is_ok());
        assert!(check_session_ttl(Duration::from_secs(86_400)).is_ok());
        for ttl in
            [Duration::from_secs(9), Duration::from_millis(10_500), Duration::from_secs(86_401)]
        {
            let err = check_session_ttl(ttl).unwrap_err();
            assert_eq!(err.kind(), ErrorKind::InvalidInput, "{err}");
            assert!(err.to_string().contains("from 10s to 24h"), "{err}");
        }
    }
}
