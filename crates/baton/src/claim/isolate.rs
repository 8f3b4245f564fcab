//! Panic isolation: a handler runs in a task of its own, so that its panic becomes a failure
//! with a reason instead of taking its claim's bookkeeping down with it.

use std::future::Future;

use tokio::task::JoinHandle;

/// A handler running in a task of its own.
pub(crate) struct Isolated<T>(JoinHandle<T>);

/// Starts `handler` in a task of its own on `tasks`.
pub(crate) fn isolated<T: Send + 'static>(
    tasks: &tokio_util::task::TaskTracker,
    handler: impl Future<Output = T> + Send + 'static,
) -> Isolated<T> {
    Isolated(tasks.spawn(handler))
}

impl<T> Isolated<T> {
    /// Waits for the handler: what it returned, or why it did not return (its panic message).
    pub(crate) async fn join(&mut self) -> Result<T, String> {
        (&mut self.0).await.map_err(|err| {
            if err.is_panic() {
                format!("the handler panicked: {}", panic_message(err.into_panic()))
            } else {
                "the handler was stopped before it returned".to_string()
            }
        })
    }

    /// Gives the handler up to `grace` to return, then aborts it; waits until it has ended.
    pub(crate) async fn stop(&mut self, grace: std::time::Duration) {
        if tokio::time::timeout(grace, &mut self.0).await.is_err() {
            self.0.abort();
            let _ = (&mut self.0).await;
        }
    }
}

fn panic_message(payload: Box<dyn std::any::Any + Send>) -> String {
    if let Some(text) = payload.downcast_ref::<&str>() {
        (*text).to_string()
    } else if let Some(text) = payload.downcast_ref::<String>() {
        text.clone()
    } else {
        "(no message)".to_string()
    }
}
