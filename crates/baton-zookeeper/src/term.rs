//! Renewing and ending terms.
//!
//! A renewal touches the holder's term node (its `mtime` is the renewal, on the ensemble's
//! clock), conditional on the record being unchanged since the acquisition and on the term node
//! being unchanged since the last renewal. A renewal that lands after the lease expired ends
//! the term instead. A release or a forced release rewrites the record and deletes the term
//! node in one conditional multi-operation.

use baton_core::{
    Error, FencingToken, HolderId, Lease, LeaseName, ReleaseParams, RenewAllOutcome,
    RenewAllParams, RenewParams, Result,
};
use zookeeper_client::{Client, Error as ZkError, MultiWriteError, MultiWriteResult, MultiWriter};

use crate::paths;
use crate::reads;
use crate::record::{Current, State, Term, encode, malformed};
use crate::store::Inner;

fn lost(name: &LeaseName, holder: &HolderId, token: FencingToken) -> Error {
    Error::lease_lost(format!("lease {name} is no longer held by {holder} under token {token}"))
}

/// Whether a conditional write failed because the lease changed meanwhile.
pub(crate) fn changed(err: &MultiWriteError) -> bool {
    matches!(
        err,
        MultiWriteError::OperationFailed { source: ZkError::NoNode | ZkError::BadVersion, .. }
    )
}

/// The lease as `holder` last wrote it under `token` (unless `fresh`), or as read now; `None`
/// if it does not hold it. The flag says whether it was read now.
async fn held(
    inner: &Inner,
    client: &Client,
    name: &LeaseName,
    holder: &HolderId,
    token: FencingToken,
    fresh: bool,
) -> Result<Option<(Current, bool)>> {
    if !fresh && let Some(known) = inner.known.held(name, holder, token) {
        return Ok(Some((known, false)));
    }
    let (current, _) = reads::current(&inner.session, client, name, false).await?;
    Ok(current.filter(|c| c.holds(holder, token)).map(|c| (c, true)))
}

/// The holder and term node of a held lease.
fn term_of(current: &Current) -> Result<(&HolderId, Term)> {
    let holder = current.lease.holder.as_ref().ok_or_else(|| malformed("a term without holder"))?;
    let term = current.term.ok_or_else(|| malformed("a term without node"))?;
    Ok((holder, term))
}

/// Adds the renewal of `current`: the record unchanged, the term node touched.
fn add_touch(writer: &mut MultiWriter<'_>, current: &Current) -> Result<(), ZkError> {
    let name = &current.lease.name;
    let (holder, term) = term_of(current).map_err(|_| ZkError::BadArguments(&"no term"))?;
    writer.add_check_version(&paths::record(name), current.version)?;
    writer.add_set_data(&paths::term(name, holder), b"", Some(term.version))
}

pub(crate) async fn renew(inner: &Inner, params: RenewParams) -> Result<Lease> {
    let client = inner.session.client().await?;
    let (name, holder, token) = (&params.name, &params.holder, params.token);
    let action = || format!("renewing lease {name}");
    let mut fresh = false;
    loop {
        let Some((current, read)) = held(inner, &client, name, holder, token, fresh).await? else {
            inner.known.forget(name);
            return Err(lost(name, holder, token));
        };
        let mut writer = client.new_multi_writer();
        add_touch(&mut writer, &current).map_err(|err| inner.session.error(action(), &err))?;
        match writer.commit().await {
            Ok(results) => return touched(inner, &client, current, results.get(1)).await,
            Err(err) if changed(&err) && !read => fresh = true,
            Err(err) if changed(&err) => {
                inner.known.forget(name);
                return Err(lost(name, holder, token));
            }
            Err(err) => return Err(inner.session.error(action(), &err.into())),
        }
    }
}

/// The lease renewed by a touch whose answer is `answer`. A touch that came after the expiry
/// ends the term (the record says it lapsed, the term node goes) and is refused.
async fn touched(
    inner: &Inner,
    client: &Client,
    current: Current,
    answer: Option<&MultiWriteResult>,
) -> Result<Lease> {
    let Some(MultiWriteResult::SetData { stat }) = answer else {
        return Err(malformed("a renewal without its term's stat"));
    };
    inner.session.observe(stat.mtime);
    let (holder, token) = (term_of(&current)?.0.clone(), current.lease.token);
    let name = current.lease.name.clone();
    if stat.mtime >= current.lease.expires_at.as_millis() {
        end(inner, client, &current, State::Expired).await.ok();
        inner.known.forget(&name);
        return Err(Error::lease_lost(format!(
            "lease {name} expired before {holder} renewed it under token {token}"
        )));
    }
    let mut renewed = Current { term: Some(Term::from(stat)), ..current };
    renewed.lease.renewed_at = baton_core::StoreTime::from_millis(stat.mtime);
    renewed.lease.expires_at = renewed.lease.renewed_at.saturating_add(renewed.lease.ttl);
    let lease = renewed.lease.clone();
    inner.known.put(renewed);
    Ok(lease)
}

/// Ends the term of `current` in `state`: the record keeps the term's token and instants, the
/// term node goes; conditional on both being as `current` shows them. Answers the record after.
async fn end(
    inner: &Inner,
    client: &Client,
    current: &Current,
    state: State,
) -> std::result::Result<Current, MultiWriteError> {
    let name = &current.lease.name;
    let (holder, term) = term_of(current).map_err(|_| ZkError::BadArguments(&"no term"))?;
    let record = current.ended(state);
    let mut writer = client.new_multi_writer();
    writer.add_set_data(&paths::record(name), &encode(&record), Some(current.version))?;
    writer.add_delete(&paths::term(name, holder), Some(term.version))?;
    let results = writer.commit().await?;
    let Some(MultiWriteResult::SetData { stat }) = results.first() else {
        return Err(ZkError::UnexpectedError("an ended term without its record's stat".into()))?;
    };
    inner.session.observe(stat.mtime);
    Current::new(name, record, stat, None)
        .map_err(|err| ZkError::UnexpectedError(err.to_string()).into())
}

pub(crate) async fn release(inner: &Inner, params: ReleaseParams) -> Result<bool> {
    let client = inner.session.client().await?;
    let (name, holder, token) = (&params.name, &params.holder, params.token);
    let mut fresh = false;
    loop {
        let Some((current, read)) = held(inner, &client, name, holder, token, fresh).await? else {
            inner.known.forget(name);
            return Ok(false);
        };
        match end(inner, &client, &current, State::Graceful).await {
            Ok(released) => {
                // A lease released after it expired is freed all the same, but was no longer
                // held: the caller learns that its term had already ended.
                let in_time = released.lease.expires_at < current.lease.expires_at;
                inner.known.put(released);
                return Ok(in_time);
            }
            Err(err) if changed(&err) && !read => fresh = true,
            Err(err) if changed(&err) => {
                inner.known.forget(name);
                return Ok(false);
            }
            Err(err) => {
                let action = format!("releasing lease {name}");
                return Err(inner.session.error(action, &err.into()));
            }
        }
    }
}

/// Frees a lease whoever holds it, if its term is still running on the ensemble's clock.
pub(crate) async fn force_release(inner: &Inner, name: &LeaseName) -> Result<Option<Lease>> {
    let client = inner.session.client().await?;
    reads::sync(&inner.session, &client).await?;
    for _ in 0..5 {
        let (current, _) = reads::current(&inner.session, &client, name, false).await?;
        let Some(current) = current.filter(|c| c.record.state == State::Held && c.term.is_some())
        else {
            return Ok(None);
        };
        if reads::now(&inner.session).await? >= current.lease.expires_at {
            return Ok(None);
        }
        match end(inner, &client, &current, State::Forced).await {
            Ok(_) => {
                inner.known.forget(name);
                return Ok(Some(current.lease));
            }
            Err(err) if changed(&err) => {}
            Err(err) => {
                let action = format!("releasing lease {name} by force");
                return Err(inner.session.error(action, &err.into()));
            }
        }
    }
    Err(crate::error::conflict(format!("releasing lease {name} by force")))
}

/// Renews every lease this process last wrote as held by the holder in one multi-operation;
/// the others, and all of them if that fails, one by one.
pub(crate) async fn renew_all(inner: &Inner, params: RenewAllParams) -> Result<RenewAllOutcome> {
    let client = inner.session.client().await?;
    let holder = &params.holder;
    let (mut known, mut others) = (Vec::new(), Vec::new());
    for (name, token) in &params.leases {
        match inner.known.held(name, holder, *token) {
            Some(current) => known.push(current),
            None => others.push((name.clone(), *token)),
        }
    }
    let mut outcome = RenewAllOutcome::default();
    if !known.is_empty() {
        let mut writer = client.new_multi_writer();
        for current in &known {
            add_touch(&mut writer, current)
                .map_err(|err| inner.session.error("renewing leases", &err))?;
        }
        match writer.commit().await {
            Ok(results) => {
                for (current, pair) in known.into_iter().zip(results.chunks(2)) {
                    let name = current.lease.name.clone();
                    sort(&mut outcome, name, touched(inner, &client, current, pair.get(1)).await)?;
                }
            }
            Err(err) if changed(&err) => {
                others.extend(known.into_iter().map(|c| (c.lease.name.clone(), c.lease.token)));
            }
            Err(err) => return Err(inner.session.error("renewing leases", &err.into())),
        }
    }
    for (name, token) in others {
        let params = RenewParams { name: name.clone(), holder: holder.clone(), token };
        sort(&mut outcome, name, renew(inner, params).await)?;
    }
    Ok(outcome)
}

/// Files one renewal's result: renewed, lost, or an error that ends the call.
fn sort(outcome: &mut RenewAllOutcome, name: LeaseName, result: Result<Lease>) -> Result<()> {
    match result {
        Ok(lease) => outcome.renewed.push(lease),
        Err(err) if err.kind() == baton_core::ErrorKind::LeaseLost => outcome.lost.push(name),
        Err(err) => return Err(err),
    }
    Ok(())
}
