//! Wake-ups from the store's change notification, so a waiting contender learns of a release
//! at once instead of at its next retry.

use std::sync::Arc;

use baton_core::LeaseName;
use tokio::sync::broadcast;

use super::shared::Shared;

/// Starts the listener once, if the store can notify.
pub(crate) fn ensure_listening(shared: &Arc<Shared>) {
    if !shared.store.capabilities().change_notification {
        return;
    }
    if shared.listener_started.set(()).is_err() {
        return;
    }
    let task = listen(shared.clone());
    shared.tasks.spawn(task);
}

async fn listen(shared: Arc<Shared>) {
    while !shared.shutdown.is_cancelled() {
        match shared.store.subscribe().await {
            Ok(Some(mut changes)) => loop {
                let next = tokio::select! {
                    () = shared.shutdown.cancelled() => return,
                    next = changes.next() => next,
                };
                match next {
                    Ok(name) => {
                        let _ = shared.released.send(name);
                    }
                    Err(err) => {
                        tracing::warn!(%err, "lease change feed broke, subscribing again");
                        break;
                    }
                }
            },
            Ok(None) => return,
            Err(err) => tracing::warn!(%err, "subscribing to lease changes failed"),
        }
        tokio::select! {
            () = shared.shutdown.cancelled() => return,
            () = tokio::time::sleep(shared.config.jittered_retry()) => {}
        }
    }
}

/// Resolves when `name` is reported released (or the feed lags, which may hide it).
pub(crate) async fn released(receiver: &mut broadcast::Receiver<LeaseName>, name: &LeaseName) {
    loop {
        match receiver.recv().await {
            Ok(released) if &released == name => return,
            Ok(_) => {}
            Err(broadcast::error::RecvError::Lagged(_)) => return,
            Err(broadcast::error::RecvError::Closed) => std::future::pending().await,
        }
    }
}
