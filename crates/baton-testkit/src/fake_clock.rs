//! A node process's clocks set off from the host's, from outside the process: libfaketime
//! (Debian's `faketime` package), preloaded into it, shifts its wall clock and makes its clocks
//! (wall and monotonic) run at a rate of its own. Its sleeps and timers follow its clocks, so a
//! process whose clocks run at 0.8 waits 1.25 real seconds for each second it waits.

use std::path::PathBuf;

use tokio::process::Command;

/// Where Debian installs the multi-threaded build of libfaketime.
const LIBRARY_GLOB: &str = "/usr/lib/*/faketime/libfaketimeMT.so.1";

/// How a process's clocks differ from the host's.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FakeClock {
    /// Seconds added to its wall clock.
    pub offset_seconds: i64,
    /// How fast its clocks run against the host's (1.0: as fast).
    pub rate: f64,
}

impl FakeClock {
    /// The host's clocks, untouched.
    pub const REAL: FakeClock = FakeClock { offset_seconds: 0, rate: 1.0 };

    /// A wall clock `offset_seconds` ahead of the host's (behind, if negative), running at
    /// the host's rate.
    pub fn skewed(offset_seconds: i64) -> FakeClock {
        FakeClock { offset_seconds, rate: 1.0 }
    }

    /// Clocks running at `rate` against the host's.
    pub fn running_at(rate: f64) -> FakeClock {
        FakeClock { offset_seconds: 0, rate }
    }

    /// Makes `command` start its process with these clocks. Panics, naming the package to
    /// install, when libfaketime is missing.
    pub fn apply(&self, command: &mut Command) {
        if *self == FakeClock::REAL {
            return;
        }
        command
            .env("LD_PRELOAD", library())
            .env("FAKETIME", format!("{:+}s x{}", self.offset_seconds, self.rate));
    }
}

/// The path of libfaketime's multi-threaded build.
fn library() -> PathBuf {
    let found = glob_one(LIBRARY_GLOB);
    found.unwrap_or_else(|| {
        panic!(
            "libfaketime not found ({LIBRARY_GLOB}): install faketime (apt-get install faketime)"
        )
    })
}

/// The first path matching `pattern`, whose only wildcard is one `*` standing for one
/// directory.
fn glob_one(pattern: &str) -> Option<PathBuf> {
    let (parent, rest) = pattern.split_once("/*/")?;
    std::fs::read_dir(parent)
        .ok()?
        .filter_map(|entry| entry.ok())
        .map(|entry| entry.path().join(rest))
        .find(|path| path.exists())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_preloaded_process_sees_its_own_wall_clock() {
        let host = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .expect("after the epoch")
            .as_secs() as i64;
        let mut command = Command::new("date");
        command.arg("+%s");
        FakeClock::skewed(3600).apply(&mut command);
        let output = command.output().await.expect("date runs");
        let seen: i64 = String::from_utf8_lossy(&output.stdout).trim().parse().expect("seconds");
        assert!((seen - host - 3600).abs() <= 5, "host {host}, process {seen}");
    }
}
