//! Releases that failed, sent again before the holder's next acquisition or renewal.
//!
//! A holder's leases share its etcd lease, so a term whose release failed (etcd unreachable,
//! an unknown outcome) would otherwise stay held for as long as the holder keeps its other
//! leases, or acquires new ones, under that etcd lease. Sending the release again is safe: it
//! is a compare-and-set on the holder and token of that term, and does nothing once another
//! term began.

use std::sync::Mutex;

use baton_core::{HolderId, ReleaseParams};

/// The releases of this store that failed and were not yet sent again successfully.
#[derive(Default)]
pub(crate) struct PendingReleases {
    releases: Mutex<Vec<ReleaseParams>>,
}

impl PendingReleases {
    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<ReleaseParams>> {
        self.releases.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Keeps a release that failed.
    pub(crate) fn add(&self, release: ReleaseParams) {
        let mut releases = self.lock();
        if !releases.contains(&release) {
            releases.push(release);
        }
    }

    /// Takes the failed releases of `holder`.
    pub(crate) fn take(&self, holder: &HolderId) -> Vec<ReleaseParams> {
        let mut releases = self.lock();
        let (taken, kept) = releases.drain(..).partition(|release| &release.holder == holder);
        *releases = kept;
        taken
    }
}
