//! A server's family of processes: the server and the children it starts, found through
//! `/proc` (Linux), so that they can be paused together and none outlives a stopped server.

use std::time::{Duration, Instant};

use nix::sys::signal::{self, Signal};
use nix::sys::wait::{WaitPidFlag, waitpid};
use nix::unistd::Pid;

/// How often exits are polled.
const POLL: Duration = Duration::from_millis(10);

/// Sends a signal, ignoring a process that is already gone.
pub(super) fn send(pid: u32, signal: Signal) {
    if let Ok(raw) = i32::try_from(pid) {
        let _ = signal::kill(Pid::from_raw(raw), signal);
    }
}

/// A process as identified on Linux: its id and start time (so a reused id is not mistaken
/// for it).
pub(super) type ProcessId = (u32, u64);

/// The parent id, start time and state of a process, from `/proc/<pid>/stat`.
fn stat(pid: u32) -> Option<(u32, u64, char)> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name is in parentheses and may contain spaces: the fields resume after the
    // last ')'.
    let fields: Vec<&str> = text.get(text.rfind(')')? + 1..)?.split_whitespace().collect();
    let state = fields.first()?.chars().next()?;
    let parent = fields.get(1)?.parse().ok()?;
    let start = fields.get(19)?.parse().ok()?;
    Some((parent, start, state))
}

/// Every live descendant of `root` (empty where `/proc` is not available).
pub(super) fn descendants(root: u32) -> Vec<ProcessId> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let table: Vec<(u32, u32, u64)> = entries
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(|pid| stat(pid).map(|(parent, start, _)| (pid, parent, start)))
        .collect();
    let mut found: Vec<ProcessId> = Vec::new();
    let mut frontier = vec![root];
    while let Some(parent) = frontier.pop() {
        for &(pid, _, start) in table.iter().filter(|(_, p, _)| *p == parent) {
            found.push((pid, start));
            frontier.push(pid);
        }
    }
    found
}

/// Makes this process the reaper of its servers' orphans (Linux), so that the children a killed
/// server leaves behind can be waited for here instead of lingering as zombies of `init`.
pub(super) fn adopt_orphans() {
    #[cfg(target_os = "linux")]
    {
        static ADOPT: std::sync::Once = std::sync::Once::new();
        ADOPT.call_once(|| {
            let _ = nix::sys::prctl::set_child_subreaper(true);
        });
    }
}

/// Reaps the process if it is an exited child of this process (an adopted orphan).
fn reap(&(pid, _): &ProcessId) {
    if let Ok(raw) = i32::try_from(pid) {
        let _ = waitpid(Pid::from_raw(raw), Some(WaitPidFlag::WNOHANG));
    }
}

/// Whether the process still runs (a zombie does not).
fn alive(&(pid, start): &ProcessId) -> bool {
    match stat(pid) {
        Some((_, now_start, state)) => now_start == start && !matches!(state, 'Z' | 'X'),
        None => false,
    }
}

/// Waits for the given processes to exit, then kills the survivors.
pub(super) fn wait_gone(processes: &[ProcessId], grace: Duration) {
    let deadline = Instant::now() + grace;
    processes.iter().for_each(reap);
    while processes.iter().any(alive) {
        if Instant::now() >= deadline {
            for process in processes.iter().filter(|p| alive(p)) {
                send(process.0, Signal::SIGKILL);
            }
            let reaped = Instant::now() + Duration::from_secs(1);
            while processes.iter().any(alive) && Instant::now() < reaped {
                std::thread::sleep(POLL);
                processes.iter().for_each(reap);
            }
            return;
        }
        std::thread::sleep(POLL);
        processes.iter().for_each(reap);
    }
}
