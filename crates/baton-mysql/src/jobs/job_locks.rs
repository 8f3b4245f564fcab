//! How a claim locks the rows of the jobs it decides for.
//!
//! A claim's decision for a job whose overlap policy is `allow` does not depend on the job's
//! other executions: it runs whatever else runs. Claimers of such jobs only need the job to
//! stay as read (not paused or redefined mid-claim), a shared lock, and so run side by side.
//! Every other policy (forbid, replace, buffer-one) decides on the job's running and waiting
//! executions, so its claimers take the row exclusively and decide one after the other.
//!
//! The policy is known only once the row is read, so the store remembers which jobs were
//! `allow` when last read: those are locked shared, the rest (and jobs not seen yet)
//! exclusively, each set in name order. A job locked shared that turns out no longer to be
//! `allow` is then locked exclusively as well; should that upgrade meet another claim's shared
//! lock, InnoDB breaks the deadlock and the claim runs again (see [`crate::tx`]).

use std::collections::{HashMap, HashSet};
use std::sync::Mutex;

use baton_core::{Job, JobName, OverlapPolicy};
use sqlx::MySqlConnection;

use super::definitions::{self, Lock};
use crate::tx::Failure;

/// The jobs last read with overlap policy `allow`.
#[derive(Default)]
pub(super) struct SideBySide {
    allow: Mutex<HashSet<JobName>>,
}

impl SideBySide {
    fn known(&self) -> std::sync::MutexGuard<'_, HashSet<JobName>> {
        self.allow.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Reads the registered jobs among `names`, locking the rows of those last seen as
    /// `allow` shared and the others exclusively.
    pub(super) async fn lock<'n>(
        &self,
        conn: &mut MySqlConnection,
        names: impl IntoIterator<Item = &'n JobName>,
    ) -> Result<HashMap<JobName, Job>, Failure> {
        let (shared, exclusive): (Vec<&JobName>, Vec<&JobName>) = {
            let known = self.known();
            names.into_iter().partition(|name| known.contains(*name))
        };
        let mut jobs = definitions::named(&mut *conn, exclusive, Lock::Exclusive).await?;
        let shared = definitions::named(&mut *conn, shared, Lock::Shared).await?;
        let changed: Vec<JobName> = shared
            .values()
            .filter(|job| !allows_overlap(job))
            .map(|job| job.name().clone())
            .collect();
        jobs.extend(shared);
        if !changed.is_empty() {
            jobs.extend(definitions::named(&mut *conn, &changed, Lock::Exclusive).await?);
        }
        let mut known = self.known();
        for job in jobs.values() {
            match allows_overlap(job) {
                true => known.insert(job.name().clone()),
                false => known.remove(job.name()),
            };
        }
        Ok(jobs)
    }
}

/// Whether `job`'s claims decide without looking at its other executions.
pub(super) fn allows_overlap(job: &Job) -> bool {
    job.definition.policy.overlap == OverlapPolicy::Allow
}
