//! Settings of an etcd lease store: defaults plus validated builders.

use std::time::Duration;

use baton_core::Result;
use baton_core::settings::{check_history_length, check_timeout};

/// How long a request may wait for its answer, by default. A lease write that gets no answer in
/// time has an unknown outcome.
pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(2);
/// How long opening a connection to a member may take, by default.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(2);
/// How many leader changes each lease's history keeps, by default.
pub const DEFAULT_HISTORY_LENGTH: u32 = 1000;

/// Settings of an [`EtcdLeaseStore`](crate::EtcdLeaseStore).
///
/// ```
/// # fn demo() -> baton_core::Result<()> {
/// use std::time::Duration;
/// let options = baton_etcd::EtcdOptions::default()
///     .request_timeout(Duration::from_millis(500))?
///     .history_length(10_000)?;
/// # let _ = options;
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EtcdOptions {
    pub(crate) request_timeout: Duration,
    pub(crate) connect_timeout: Duration,
    pub(crate) history_length: u32,
}

impl Default for EtcdOptions {
    fn default() -> Self {
        EtcdOptions {
            request_timeout: DEFAULT_REQUEST_TIMEOUT,
            connect_timeout: DEFAULT_CONNECT_TIMEOUT,
            history_length: DEFAULT_HISTORY_LENGTH,
        }
    }
}

impl EtcdOptions {
    /// Sets how long a request may wait for its answer (1 ms to 1 hour). A request that times
    /// out fails with [`ErrorKind::Timeout`](baton_core::ErrorKind::Timeout): its outcome is
    /// unknown, and it is never sent again on its own.
    pub fn request_timeout(mut self, timeout: Duration) -> Result<Self> {
        self.request_timeout = check_timeout("etcd request timeout", timeout)?;
        Ok(self)
    }

    /// Sets how long opening a connection to a member may take (1 ms to 1 hour).
    pub fn connect_timeout(mut self, timeout: Duration) -> Result<Self> {
        self.connect_timeout = check_timeout("etcd connect timeout", timeout)?;
        Ok(self)
    }

    /// Sets how many leader changes each lease's history keeps (1 to 1,000,000).
    pub fn history_length(mut self, length: u32) -> Result<Self> {
        self.history_length = check_history_length(length)?;
        Ok(self)
    }
}
