//! What this process last wrote to each lease, so that its own next write needs no read first.
//!
//! Every write built from this is conditional on the versions it remembers: when another
//! process changed the lease meanwhile, the write fails and the lease is read afresh.

use std::collections::HashMap;
use std::sync::Mutex;

use baton_core::{FencingToken, HolderId, LeaseName};

use crate::record::{Current, State};

/// The last state this process wrote, per lease.
#[derive(Default)]
pub(crate) struct Known(Mutex<HashMap<LeaseName, Current>>);

impl Known {
    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<LeaseName, Current>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Remembers what was just written.
    pub(crate) fn put(&self, current: Current) {
        self.map().insert(current.lease.name.clone(), current);
    }

    /// Forgets a lease.
    pub(crate) fn forget(&self, name: &LeaseName) {
        self.map().remove(name);
    }

    /// The lease as last written, if its term had ended then.
    pub(crate) fn free(&self, name: &LeaseName) -> Option<Current> {
        self.map().get(name).filter(|c| c.record.state != State::Held).cloned()
    }

    /// The lease as last written, if `holder` held it under `token` then.
    pub(crate) fn held(
        &self,
        name: &LeaseName,
        holder: &HolderId,
        token: FencingToken,
    ) -> Option<Current> {
        self.map().get(name).filter(|c| c.holds(holder, token)).cloned()
    }
}
