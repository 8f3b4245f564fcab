//! A gate that every store call of a test node passes, so that the node can stop itself with
//! SIGSTOP at a clean point: between two calls, holding no transaction or row lock open, as a
//! SIGSTOP of the whole process between two calls would (a SIGSTOP in the middle of a SQLite
//! write transaction would block every other process until SIGCONT).
//!
//! [`Gate::stop_here`] speaks the protocol of [`EventedProcess::pause`]: it prints `STOPPING`
//! on stdout before it stops and `RESUMED` after SIGCONT.
//!
//! [`EventedProcess::pause`]: crate::evented::EventedProcess::pause

use std::io::Write;

use baton::core::layer::{CallFuture, Layer};
use nix::sys::signal::{Signal, raise};
use tokio::sync::RwLock;

/// Every store call of a process passes the gate (a [`Layer`] over its stores);
/// [`Gate::stop_here`] closes it.
#[derive(Debug, Default)]
pub struct Gate(RwLock<()>);

impl Layer for Gate {
    /// Runs a store call while the gate is open. Subscriptions are opened through the gate;
    /// waiting on them is not a store call and does not pass it.
    fn call<'a, T: Send + 'a>(
        &'a self,
        _op: &'static str,
        call: CallFuture<'a, T>,
    ) -> CallFuture<'a, T> {
        Box::pin(self.pass(call))
    }
}

impl Gate {
    /// Runs `call` (a store call, or a write the test counts as one) while the gate is open.
    pub async fn pass<T>(&self, call: impl std::future::Future<Output = T>) -> T {
        let _open = self.0.read().await;
        call.await
    }

    /// Closes the gate, waits for the calls in flight, prints `STOPPING <during>` and stops
    /// the process until SIGCONT; then prints `RESUMED` and opens the gate again.
    pub async fn stop_here(&self, during: &str) {
        let _closed = self.0.write().await;
        say(&format!("STOPPING {during}"));
        if let Err(err) = raise(Signal::SIGSTOP) {
            say(&format!("ERROR cannot stop: {err}"));
        }
        say("RESUMED");
    }
}

fn say(line: &str) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}
