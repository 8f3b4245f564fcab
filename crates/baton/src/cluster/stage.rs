//! Background tasks that stop together, so that a shutdown can end them in order.

use std::future::Future;

use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

/// A group of tasks with one stop signal, which also fires when the root token does.
pub(crate) struct Stage {
    stop: CancellationToken,
    tasks: TaskTracker,
}

impl Stage {
    /// An empty stage stopped by `root` too.
    pub(crate) fn new(root: &CancellationToken) -> Self {
        Stage { stop: root.child_token(), tasks: TaskTracker::new() }
    }

    /// Starts a task given the stage's stop signal.
    pub(crate) fn spawn<F>(&self, task: impl FnOnce(CancellationToken) -> F)
    where
        F: Future<Output = ()> + Send + 'static,
    {
        self.tasks.spawn(task(self.stop.clone()));
    }

    /// The tracker of the stage's tasks, for tasks they start in turn.
    pub(crate) fn tracker(&self) -> TaskTracker {
        self.tasks.clone()
    }

    /// Signals the stage's tasks to stop and waits until all have ended.
    pub(crate) async fn end(&self) {
        self.stop.cancel();
        self.tasks.close();
        self.tasks.wait().await;
    }
}
