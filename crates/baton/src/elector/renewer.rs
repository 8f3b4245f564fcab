//! The renew loop: one store call renews every held lease, and deadlines are enforced.

use std::sync::Arc;

use baton_core::RenewAllParams;
use tokio::time::{Instant, sleep_until};

use super::shared::Shared;
use crate::metrics::{RenewOutcome, lease_lost, lease_renewal};

/// Runs until shutdown: renews all held leases every renew interval (every retry period after
/// a failure), extends each term's deadline to the renewal's send time plus the renew
/// deadline, and ends terms whose deadline passed or that the store reports lost.
pub(crate) async fn run(shared: Arc<Shared>) {
    let config = &shared.config;
    let mut next_renewal = Instant::now() + config.renew_interval;
    loop {
        let terms = shared.terms();
        let earliest_deadline = terms.iter().map(|t| t.deadline()).min();
        let wake_at = earliest_deadline.map_or(next_renewal, |d| d.min(next_renewal));
        tokio::select! {
            () = shared.shutdown.cancelled() => return,
            () = shared.held_changed.notified() => continue,
            () = sleep_until(wake_at) => {}
        }
        let now = Instant::now();
        for term in terms.iter().filter(|t| t.deadline() <= now) {
            tracing::warn!(lease = %term.lease, token = %term.token, "renew deadline passed, stepping down");
            let shared = shared.clone();
            let term = term.clone();
            shared.tasks.clone().spawn(async move {
                let _ = shared.step_down(&term, "the renew deadline passed").await;
            });
        }
        if now < next_renewal {
            continue;
        }
        let terms: Vec<_> = shared.terms();
        if terms.is_empty() {
            next_renewal = now + config.renew_interval;
            continue;
        }
        let sent = Instant::now();
        let params = RenewAllParams {
            holder: config.holder.clone(),
            leases: terms.iter().map(|t| (t.lease.clone(), t.token)).collect(),
        };
        let budget = terms
            .iter()
            .map(|t| t.deadline())
            .min()
            .unwrap_or(sent)
            .max(sent + config.retry_period);
        let outcome = tokio::select! {
            () = shared.shutdown.cancelled() => return,
            outcome = tokio::time::timeout_at(budget, shared.store.renew_all(params)) => outcome,
        };
        match outcome {
            Ok(Ok(outcome)) => {
                lease_renewal(sent.elapsed(), RenewOutcome::Renewed);
                let extended_to = sent + config.renew_deadline;
                for lease in &outcome.renewed {
                    if let Some(term) =
                        terms.iter().find(|t| t.lease == lease.name && t.token == lease.token)
                    {
                        term.extend(extended_to);
                    }
                }
                for name in &outcome.lost {
                    if let Some(term) = terms.iter().find(|t| &t.lease == name) {
                        tracing::warn!(lease = %name, token = %term.token, "lease lost");
                        lease_lost(name.as_str());
                        shared.end(term, "the store no longer lists this process as the holder");
                    }
                }
                next_renewal = sent + config.renew_interval;
            }
            Ok(Err(err)) => {
                lease_renewal(sent.elapsed(), RenewOutcome::Failed);
                tracing::warn!(%err, "renewing leases failed, retrying");
                next_renewal = Instant::now() + config.retry_period;
            }
            Err(_) => {
                lease_renewal(sent.elapsed(), RenewOutcome::TimedOut);
                tracing::warn!("renewing leases timed out, retrying");
                next_renewal = Instant::now() + config.retry_period;
            }
        }
    }
}

/// Runs until shutdown: ticks the stall watchdog and steps down from every term when the
/// process did not run for longer than the threshold.
pub(crate) async fn watch_for_stalls(shared: Arc<Shared>) {
    let period = shared.watchdog.period();
    loop {
        tokio::select! {
            () = shared.shutdown.cancelled() => return,
            () = tokio::time::sleep(period) => {}
        }
        if let Some(stall) = shared.watchdog.tick(Instant::now()) {
            for term in shared.terms() {
                tracing::warn!(lease = %term.lease, ?stall, "process stalled, stepping down");
                let _ =
                    shared.step_down(&term, &format!("the process stalled for {stall:?}")).await;
            }
        }
    }
}
