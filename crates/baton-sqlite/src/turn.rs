//! The turn to write: a lock on a file beside the database that every baton writer takes before
//! `BEGIN IMMEDIATE`, so that writers in different processes take turns fairly.
//!
//! SQLite's own write lock is not fair between processes. A process that finds it taken sleeps
//! and tries again (after up to 100 ms), so two processes that commit back to back can hold it
//! almost all the time and keep a third out past the busy timeout: its lease renewals and job
//! registrations then fail. A process waiting for an `flock` lock is woken by the kernel the
//! moment the lock is released, so every waiting writer gets in within a few transactions.
//!
//! Each turn opens the lock file anew: a lock belongs to one open file, so a wait given up after
//! the busy timeout, still blocked in its own thread, cannot share a turn taken later.

use std::fs::{File, OpenOptions, TryLockError};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use baton_core::{Error, ErrorKind, Result};

/// The lock file of one database, `<database>.lock`.
#[derive(Debug, Clone)]
pub(crate) struct WriteGate {
    path: Arc<PathBuf>,
}

/// One writer's turn; dropping it closes the file, which releases the lock.
#[derive(Debug)]
pub(crate) struct WriteTurn {
    _locked: File,
}

impl WriteGate {
    /// The gate of the database at `database`.
    pub(crate) fn beside(database: &Path) -> WriteGate {
        let mut path = database.as_os_str().to_owned();
        path.push(".lock");
        WriteGate { path: Arc::new(PathBuf::from(path)) }
    }

    /// Waits up to `wait` for the turn to write.
    ///
    /// Fails with `Timeout` when another process keeps the turn that long, and with
    /// `Unavailable` when the lock file cannot be opened.
    pub(crate) async fn enter(&self, wait: Duration, doing: &str) -> Result<WriteTurn> {
        let file = self.open(doing)?;
        match file.try_lock() {
            Ok(()) => return Ok(WriteTurn { _locked: file }),
            Err(TryLockError::WouldBlock) => {}
            Err(TryLockError::Error(err)) => return Err(self.failed(doing, &err)),
        }
        let waiting = tokio::task::spawn_blocking(move || file.lock().map(|()| file));
        match tokio::time::timeout(wait, waiting).await {
            Ok(Ok(Ok(file))) => Ok(WriteTurn { _locked: file }),
            Ok(Ok(Err(err))) => Err(self.failed(doing, &err)),
            Ok(Err(join)) => Err(Error::new(
                ErrorKind::Internal,
                format!("SQLite store: {doing}: waiting for the write turn failed: {join}"),
            )),
            Err(_elapsed) => Err(Error::new(
                ErrorKind::Timeout,
                format!(
                    "SQLite store: {doing}: another process held the write turn ({}) for more \
                     than {} s",
                    self.path.display(),
                    wait.as_secs()
                ),
            )),
        }
    }

    fn open(&self, doing: &str) -> Result<File> {
        OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&*self.path)
            .map_err(|err| self.failed(doing, &err))
    }

    fn failed(&self, doing: &str, err: &std::io::Error) -> Error {
        Error::new(
            ErrorKind::Unavailable,
            format!("SQLite store: {doing}: cannot lock {}: {err}", self.path.display()),
        )
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use baton_core::ErrorKind;

    use super::WriteGate;

    const LONG: Duration = Duration::from_secs(30);
    const SHORT: Duration = Duration::from_millis(50);

    fn gate(dir: &tempfile::TempDir) -> WriteGate {
        WriteGate::beside(&dir.path().join("baton.db"))
    }

    #[tokio::test]
    async fn one_turn_at_a_time_and_the_next_waiter_gets_it_on_release() {
        let dir = tempfile::tempdir().unwrap();
        let held = gate(&dir).enter(LONG, "first").await.unwrap();
        let refused = gate(&dir).enter(SHORT, "second").await.unwrap_err();
        assert_eq!(refused.kind(), ErrorKind::Timeout);
        assert!(refused.to_string().contains("baton.db.lock"), "{refused}");

        let other = gate(&dir);
        let waiting = tokio::spawn(async move { other.enter(LONG, "third").await });
        drop(held);
        waiting.await.unwrap().expect("the waiter gets the turn once it is released");
    }

    #[tokio::test]
    async fn a_wait_given_up_does_not_keep_or_share_a_later_turn() {
        let dir = tempfile::tempdir().unwrap();
        let held = gate(&dir).enter(LONG, "first").await.unwrap();
        // Gives up while its thread stays blocked on the lock.
        gate(&dir).enter(SHORT, "impatient").await.unwrap_err();
        drop(held);

        let next = gate(&dir).enter(LONG, "next").await.expect("the turn comes free again");
        let shared = gate(&dir).enter(SHORT, "while next holds it").await.unwrap_err();
        assert_eq!(shared.kind(), ErrorKind::Timeout);
        drop(next);
        gate(&dir).enter(LONG, "after next").await.unwrap();
    }
}
