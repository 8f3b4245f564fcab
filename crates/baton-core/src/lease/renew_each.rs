//! `renew_all` for stores with no write over several leases at once (Kubernetes, Consul,
//! DynamoDB, Azure Blob): one renewal per lease, a few at a time.

use std::future::Future;

use futures_util::stream::{self, StreamExt};

use super::{Lease, RenewAllOutcome, RenewAllParams, RenewParams};
use crate::error::{ErrorKind, Result};

/// Renewals of one holder in flight at once.
const CONCURRENT_RENEWALS: usize = 16;

/// Renews every lease of `params` with `renew`, sixteen at a time. A lease whose renewal fails
/// with [`ErrorKind::LeaseLost`] is lost; one whose renewal fails otherwise (an unknown outcome)
/// is in neither list, so that its term is not confirmed and the next call tries again. Fails
/// only if every renewal failed that way, with the first such error.
pub async fn renew_each<F, Fut>(params: RenewAllParams, renew: F) -> Result<RenewAllOutcome>
where
    F: Fn(RenewParams) -> Fut,
    Fut: Future<Output = Result<Lease>>,
{
    let holder = params.holder;
    let results: Vec<_> = stream::iter(params.leases)
        .map(|(name, token)| {
            let renewal = renew(RenewParams { name: name.clone(), holder: holder.clone(), token });
            async move { (name, renewal.await) }
        })
        .buffered(CONCURRENT_RENEWALS)
        .collect()
        .await;
    let mut outcome = RenewAllOutcome::default();
    let mut failed = None;
    for (name, result) in results {
        match result {
            Ok(lease) => outcome.renewed.push(lease),
            Err(err) if err.kind() == ErrorKind::LeaseLost => outcome.lost.push(name),
            Err(err) => {
                failed.get_or_insert(err);
            }
        }
    }
    match failed {
        Some(err) if outcome.renewed.is_empty() && outcome.lost.is_empty() => Err(err),
        _ => Ok(outcome),
    }
}
