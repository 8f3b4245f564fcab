//! Drives `baton-test-holder` processes from a test: start, read their events, kill, pause.
//!
//! The process plumbing is [`EventedProcess`]'s, reached through `Deref`: `expect`, `next`,
//! `drain`, `kill9`, `pause`, `resume`.

use std::ops::{Deref, DerefMut};
use std::time::Duration;

use tokio::process::Command;

pub use crate::evented::Event;
use crate::evented::EventedProcess;
use crate::fake_clock::FakeClock;

/// A running holder process; killed when dropped.
pub struct HolderProcess {
    process: EventedProcess,
    /// The writer name it appends to the ledger under.
    pub writer: String,
}

impl HolderProcess {
    /// Starts `binary` (the path of `baton-test-holder`) for a lease, given as the URL of its
    /// store, the URL of the ledger's store and the lease's name, with its clocks set to
    /// `clock`.
    pub fn spawn(
        binary: &str,
        [url, ledger, lease]: [&str; 3],
        ttl: Duration,
        writer: &str,
        clock: FakeClock,
    ) -> Self {
        let mut command = Command::new(binary);
        command.args([url, ledger, lease, &ttl.as_millis().to_string(), writer]);
        clock.apply(&mut command);
        HolderProcess {
            process: EventedProcess::spawn(command, writer),
            writer: writer.to_string(),
        }
    }
}

impl Deref for HolderProcess {
    type Target = EventedProcess;

    fn deref(&self) -> &EventedProcess {
        &self.process
    }
}

impl DerefMut for HolderProcess {
    fn deref_mut(&mut self) -> &mut EventedProcess {
        &mut self.process
    }
}
