//! Renewing and releasing a term: the term's session renewed (Consul judges its TTL), then the
//! record written with that session's lock; a release frees the lock and then destroys the
//! session; a forced release destroys the holder's session first, so its renewals fail.

use baton_core::lease::renew_each;
use baton_core::{
    Error, FencingToken, ForceReleaseParams, HolderId, Lease, LeaseName, ReleaseKind,
    ReleaseParams, RenewAllOutcome, RenewAllParams, RenewParams, Result,
};

use crate::client::KvWrite;
use crate::keys;
use crate::reads::read;
use crate::store::Inner;
use crate::terms::Term;

fn lost(name: &LeaseName, holder: &HolderId, token: FencingToken) -> Error {
    Error::lease_lost(format!("lease {name} is no longer held by {holder} under token {token}"))
}

/// The caller's term: as this store remembers it, or as its key states it (held by a session,
/// for this holder and token).
async fn current_term(
    inner: &Inner,
    name: &LeaseName,
    holder: &HolderId,
    token: FencingToken,
) -> Result<Option<Term>> {
    if let Some(term) = inner.terms.get(name.as_str()).filter(|term| term.of(holder, token)) {
        return Ok(Some(term));
    }
    let Some(stored) = read(inner, name).await?.filter(|stored| stored.held_by(holder, token))
    else {
        return Ok(None);
    };
    let session = stored.session().unwrap_or_default().to_string();
    Ok(Some(Term { holder: holder.clone(), token, session, record: stored.record }))
}

/// Renews one term: its session, then its record's renewal time.
pub(crate) async fn renew(inner: &Inner, params: RenewParams) -> Result<Lease> {
    let (name, holder, token) = (&params.name, &params.holder, params.token);
    let forget = || inner.terms.forget_if(name.as_str(), |term| term.of(holder, token));
    let Some(term) = current_term(inner, name, holder, token).await? else {
        forget();
        return Err(lost(name, holder, token));
    };
    let Some(at) = inner.consul.renew_session(&term.session).await? else {
        forget();
        return Err(lost(name, holder, token));
    };
    let record = term.record.renewed(at);
    let key = keys::lease_key(&inner.consul.target.prefix, name);
    let write = KvWrite::Acquire(&term.session);
    match inner.consul.write(&key, &record.to_bytes(), write).await {
        Ok((true, _)) => {}
        Ok((false, _)) => {
            forget();
            return Err(lost(name, holder, token));
        }
        // The renewal may have been applied: the key says, never a second write.
        Err(err) if err.kind().outcome_unknown() => match read(inner, name).await? {
            Some(stored) if stored.session() == Some(&term.session) && stored.record == record => {}
            Some(stored) if stored.session() == Some(&term.session) => return Err(err),
            _ => {
                forget();
                return Err(lost(name, holder, token));
            }
        },
        Err(err) => return Err(err),
    }
    let lease = record.held_lease(name, token)?;
    inner.terms.remember(name.as_str(), Term { record, ..term });
    Ok(lease)
}

/// Renews every listed term of a holder, a few at a time (each term has a session of its own).
/// A renewal whose outcome is unknown is in neither list (its term is not confirmed, and the
/// next call tries again); the call fails only if every renewal did.
pub(crate) async fn renew_all(inner: &Inner, params: RenewAllParams) -> Result<RenewAllOutcome> {
    renew_each(params, |params| renew(inner, params)).await
}

/// Releases the caller's term: the record marked released at the agent's time with the lock
/// freed (no lock-delay: it is no invalidation), then the session destroyed.
pub(crate) async fn release(inner: &Inner, params: ReleaseParams) -> Result<bool> {
    let (name, holder, token) = (&params.name, &params.holder, params.token);
    let Some(term) = current_term(inner, name, holder, token).await? else {
        return Ok(false);
    };
    inner.terms.forget_if(name.as_str(), |term| term.of(holder, token));
    let at = inner.consul.now().await?;
    let record = term.record.released(ReleaseKind::Graceful, at);
    let key = keys::lease_key(&inner.consul.target.prefix, name);
    match inner.consul.write(&key, &record.to_bytes(), KvWrite::Release(&term.session)).await {
        Ok((true, _)) => {}
        Ok((false, _)) => return Ok(false),
        Err(err) if err.kind().outcome_unknown() => match read(inner, name).await? {
            Some(stored) if stored.session().is_none() && stored.record == record => {}
            Some(stored) if stored.session() == Some(&term.session) => return Err(err),
            _ => return Ok(false),
        },
        Err(err) => return Err(err),
    }
    if let Err(err) = inner.consul.destroy_session(&term.session).await {
        tracing::debug!(lease = %name, %err, "a released term's session is left to its TTL");
    }
    Ok(true)
}

/// Frees a lease whoever holds it: the holder's session destroyed (so that its renewals fail),
/// then the record marked as released by force, unless someone acquired the lease meanwhile.
pub(crate) async fn force_release(
    inner: &Inner,
    params: ForceReleaseParams,
) -> Result<Option<Lease>> {
    let name = &params.name;
    let Some(stored) = read(inner, name).await? else { return Ok(None) };
    let Some(session) = stored.session() else { return Ok(None) };
    let previous = stored.lease(name)?;
    let at = inner.consul.destroy_session(session).await?;
    if let Some(freed) = read(inner, name).await?.filter(|stored| stored.session().is_none()) {
        let record = freed.record.released(ReleaseKind::Forced, at);
        let key = keys::lease_key(&inner.consul.target.prefix, name);
        // Refused only if the key changed meanwhile: someone acquired the lease, which is fine.
        let cas = KvWrite::Cas(freed.entry.modify_index);
        inner.consul.write(&key, &record.to_bytes(), cas).await?;
    }
    if let Some(holder) = &previous.holder {
        inner.terms.forget_if(name.as_str(), |term| term.of(holder, previous.token));
    }
    Ok(Some(previous))
}
