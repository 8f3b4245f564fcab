//! A command that must not outlive the baton running it: it starts a child, and both append
//! the fencing token to a file until they are killed. The test kills baton and checks that
//! the command, its child and whatever stood between baton and the command are gone, and that
//! the file stops growing.

use std::path::{Path, PathBuf};
use std::time::Duration;

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;

use super::agent::{eventually, process_runs};

/// The `sh -c` script, given the file as `$1`: it starts a child, writes the process ids of
/// its parent, itself and the child to `$1.pids` (whole, through a rename), and then it and
/// the child each append `command TOKEN` and `child TOKEN` lines to `$1` every 20 ms.
pub const SCRIPT: &str = r#"
write() { while :; do echo "$1 $BATON_FENCING_TOKEN" >> "$2"; sleep 0.02; done; }
write child "$1" &
echo "$PPID $$ $!" > "$1.partial" && mv "$1.partial" "$1.pids"
write command "$1"
"#;

/// Running writers: the command's parent, the command and its child; all three are killed
/// when this is dropped, so that a failing test leaves nothing behind.
pub struct Writers {
    file: PathBuf,
    pids: Vec<i32>,
}

impl Writers {
    /// Waits until the script given `file` has written its process ids and both the command
    /// and its child have appended to `file`.
    pub async fn started(file: &Path) -> Writers {
        let mut pids_file = file.as_os_str().to_owned();
        pids_file.push(".pids");
        let pids = eventually("the command to start", Duration::from_secs(20), async || {
            let text = std::fs::read_to_string(&pids_file).ok()?;
            let pids: Vec<i32> = text.split_whitespace().map(|p| p.parse().unwrap()).collect();
            Some(pids)
        })
        .await;
        assert_eq!(pids.len(), 3, "{pids:?}");
        let writers = Writers { file: file.to_owned(), pids };
        eventually("the command and its child to write", Duration::from_secs(10), async || {
            let lines = std::fs::read_to_string(file).unwrap_or_default();
            let has = |who: &str| lines.lines().any(|line| line.starts_with(who));
            (has("command ") && has("child ")).then_some(())
        })
        .await;
        writers
    }

    /// Fails unless the command's parent, the command and its child are all gone within 10 s,
    /// and then the file stays as it is.
    pub async fn stop_by_themselves(&self) {
        let what = format!(
            "the command's parent, the command and its child (pids {:?}) to be gone",
            self.pids
        );
        eventually(&what, Duration::from_secs(10), async || {
            (!self.pids.iter().any(|&pid| process_runs(pid))).then_some(())
        })
        .await;
        let size = std::fs::metadata(&self.file).unwrap().len();
        // Ten write intervals of the script.
        tokio::time::sleep(Duration::from_millis(200)).await;
        let later = std::fs::metadata(&self.file).unwrap().len();
        assert_eq!(size, later, "{} still grows", self.file.display());
    }
}

impl Drop for Writers {
    fn drop(&mut self) {
        for &pid in &self.pids {
            if process_runs(pid) {
                let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);
            }
        }
    }
}
