//! Time limits on store calls: no store call waits longer than the deadline it serves.
//!
//! Every store a runtime uses goes through the [`TimeLimit`] layer, which bounds each call by
//! the longest that runtime may wait for any answer; a call made for a claim is bounded more
//! tightly by that claim's deadline with [`until`]. A call cut off this way has an unknown
//! outcome (`Timeout`), which callers resolve by reading back or by the token's compare-and-set.

use std::future::Future;
use std::time::Duration;

use baton_core::layer::{CallFuture, Layer};
use baton_core::{Error, ErrorKind, Result};
use tokio::time::Instant;

/// A layer that fails every store call not answered within `limit` with `Timeout`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TimeLimit(pub(crate) Duration);

impl Layer for TimeLimit {
    fn call<'a, T: Send + 'a>(
        &'a self,
        op: &'static str,
        call: CallFuture<'a, T>,
    ) -> CallFuture<'a, T> {
        let limit = self.0;
        Box::pin(async move {
            tokio::time::timeout(limit, call).await.unwrap_or_else(|_| Err(timed_out(op, limit)))
        })
    }
}

/// Runs `call` (the store operation `op`) until `deadline` at the latest.
pub(crate) async fn until<T>(
    deadline: Instant,
    op: &str,
    call: impl Future<Output = Result<T>>,
) -> Result<T> {
    let limit = deadline.saturating_duration_since(Instant::now());
    tokio::time::timeout_at(deadline, call).await.unwrap_or_else(|_| Err(timed_out(op, limit)))
}

fn timed_out(op: &str, limit: Duration) -> Error {
    Error::new(ErrorKind::Timeout, format!("the store did not answer {op} within {limit:?}"))
}
