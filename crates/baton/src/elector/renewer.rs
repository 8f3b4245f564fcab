//! The renew loop: one store call renews every held lease, each term's deadline follows the
//! send time of its last confirmed renewal, and the enforcer ends terms past it.

use std::sync::Arc;

use baton_core::RenewAllParams;
use tokio::time::{Instant, sleep_until};

use super::shared::Shared;
use crate::claim;
use crate::metrics::{RenewOutcome, lease_lost, lease_renewal};
use crate::planted;

/// Runs until shutdown: renews all held leases every renew interval (every retry period after
/// a failure), each call bounded by the earliest deadline it serves, and confirms each renewed
/// term from the call's send time; ends the terms the store reports lost.
pub(crate) async fn run(shared: Arc<Shared>) {
    let config = &shared.config;
    let mut next_renewal = Instant::now() + config.renew_interval;
    loop {
        tokio::select! {
            biased;
            () = shared.shutdown.cancelled() => return,
            () = sleep_until(next_renewal) => {}
        }
        let terms: Vec<_> =
            shared.terms.all().into_iter().filter(|(_, term)| !term.is_ended()).collect();
        let Some(earliest) = terms.iter().map(|(_, term)| term.deadline()).min() else {
            next_renewal = Instant::now() + config.renew_interval;
            continue;
        };
        let sent = Instant::now();
        let params = RenewAllParams {
            holder: config.holder.clone(),
            leases: terms.iter().map(|(lease, term)| (lease.clone(), term.token())).collect(),
        };
        let outcome = tokio::select! {
            biased;
            () = shared.shutdown.cancelled() => return,
            outcome = claim::until(earliest, "lease_renew_all", shared.store.renew_all(params)) => outcome,
        };
        match outcome {
            Ok(outcome) => {
                lease_renewal(sent.elapsed(), RenewOutcome::Renewed);
                for lease in &outcome.renewed {
                    let renewed = terms
                        .iter()
                        .find(|(name, term)| *name == lease.name && term.token() == lease.token);
                    if let Some((_, term)) = renewed {
                        term.confirm(planted::counted_from(sent));
                    }
                }
                for name in &outcome.lost {
                    if let Some((_, term)) = terms.iter().find(|(lease, _)| lease == name) {
                        tracing::warn!(lease = %name, token = %term.token(), "lease lost");
                        lease_lost(name.as_str());
                        shared.terms.end(
                            name,
                            term,
                            "the store no longer lists this process as the holder",
                        );
                    }
                }
                next_renewal = sent + config.renew_interval;
            }
            Err(err) => {
                let outcome = if err.kind() == baton_core::ErrorKind::Timeout {
                    RenewOutcome::TimedOut
                } else {
                    RenewOutcome::Failed
                };
                lease_renewal(sent.elapsed(), outcome);
                tracing::warn!(%err, "renewing leases failed, retrying");
                next_renewal = Instant::now() + config.retry_period;
            }
        }
    }
}

/// Runs until shutdown: ends each term at its deadline and every term when the process
/// stalled, and releases their leases so that the next holder need not wait for the TTL.
pub(crate) async fn enforce(shared: Arc<Shared>) {
    shared
        .terms
        .enforce(|lease, term, _| {
            shared.step_down_in_background(lease, term, "the term ended");
        })
        .await;
}
