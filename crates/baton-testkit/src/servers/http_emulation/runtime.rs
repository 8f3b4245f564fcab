//! The server's own thread and tokio runtime, as a separate server process would have: it runs
//! whatever it is handed, and callers, sync or async, wait for the results without sharing
//! their runtime with it. Dropping it stops the runtime, which drops every task.

use std::future::Future;
use std::thread::JoinHandle;

use tokio::runtime::{Builder, Handle};
use tokio::sync::oneshot;

/// The thread and its runtime.
pub(crate) struct ServerThread {
    handle: Handle,
    quit: Option<oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl ServerThread {
    /// Starts the thread, named `name`, and its runtime.
    pub(crate) fn start(name: &str) -> ServerThread {
        let (quit, quitting) = oneshot::channel::<()>();
        let (handle_sender, handle_receiver) = std::sync::mpsc::channel();
        let thread = std::thread::Builder::new()
            .name(name.to_string())
            .spawn(move || {
                let runtime =
                    Builder::new_current_thread().enable_all().build().unwrap_or_else(|err| {
                        panic!("cannot start the emulated server's runtime: {err}")
                    });
                let _ = handle_sender.send(runtime.handle().clone());
                // Runs the spawned tasks until told to quit (or the server is dropped).
                let _ = runtime.block_on(quitting);
            })
            .unwrap_or_else(|err| panic!("cannot start the emulated server's thread: {err}"));
        let handle = handle_receiver.recv().expect("the server thread hands over its runtime");
        ServerThread { handle, quit: Some(quit), thread: Some(thread) }
    }

    /// Runs `future` on the server's runtime and waits for its output (blocking the caller).
    pub(crate) fn run<F>(&self, future: F) -> F::Output
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        let (sender, receiver) = std::sync::mpsc::channel();
        self.handle.spawn(async move {
            let _ = sender.send(future.await);
        });
        receiver.recv().expect("the server runtime runs the future to its end")
    }

    /// Runs `future` on the server's runtime without waiting.
    pub(crate) fn spawn<F>(&self, future: F)
    where
        F: Future<Output = ()> + Send + 'static,
    {
        self.handle.spawn(future);
    }
}

impl Drop for ServerThread {
    fn drop(&mut self) {
        if let Some(quit) = self.quit.take() {
            let _ = quit.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
