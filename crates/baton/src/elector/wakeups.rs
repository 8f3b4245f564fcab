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
            Ok(Some(mut changes)) => {
                // Anything released before the feed was live went unseen: waiters ask again.
                let _ = shared.released.send(None);
                loop {
                    let next = tokio::select! {
                        biased;
                        () = shared.shutdown.cancelled() => return,
                        next = changes.next() => next,
                    };
                    match next {
                        Ok(name) => {
                            let _ = shared.released.send(Some(name));
                        }
                        Err(err) => {
                            tracing::warn!(%err, "lease change feed broke, subscribing again");
                            break;
                        }
                    }
                }
            }
            Ok(None) => return,
            Err(err) => tracing::warn!(%err, "subscribing to lease changes failed"),
        }
        tokio::select! {
            biased;
            () = shared.shutdown.cancelled() => return,
            () = tokio::time::sleep(shared.config.jittered_retry()) => {}
        }
    }
}

/// Resolves when `name` is reported released, or when a release may have gone unseen: the
/// feed was (re)subscribed, or it lags.
pub(crate) async fn released(
    receiver: &mut broadcast::Receiver<Option<LeaseName>>,
    name: &LeaseName,
) {
    loop {
        match receiver.recv().await {
            Ok(None) => return,
            Ok(Some(released)) if &released == name => return,
            Ok(_) => {}
            Err(broadcast::error::RecvError::Lagged(_)) => return,
            Err(broadcast::error::RecvError::Closed) => std::future::pending().await,
        }
    }
}
