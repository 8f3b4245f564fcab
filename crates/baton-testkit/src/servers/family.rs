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

/// Whether `root` or one of its descendants holds a TCP socket listening on `port` (on any
/// address), read from `/proc/net/tcp`, `/proc/net/tcp6` and the processes' open files. A
/// server told to listen on a port another server took in between fails to bind it, but a probe
/// sent before it exits is answered by the other server: this tells the two apart. `true` where
/// `/proc/net` cannot be read, since nothing can be told there.
pub(super) fn listens_on(root: u32, port: u16) -> bool {
    let tables = ["/proc/net/tcp", "/proc/net/tcp6"].map(std::fs::read_to_string);
    if tables.iter().all(Result::is_err) {
        return true;
    }
    let sockets: Vec<String> = tables
        .iter()
        .flatten()
        .flat_map(|table| table.lines().skip(1))
        .filter_map(|line| listening_inode(line, port))
        .map(|inode| format!("socket:[{inode}]"))
        .collect();
    let holds = |pid: u32| {
        let Ok(files) = std::fs::read_dir(format!("/proc/{pid}/fd")) else { return false };
        files.flatten().any(|file| {
            std::fs::read_link(file.path())
                .is_ok_and(|target| sockets.iter().any(|socket| target.as_os_str() == &**socket))
        })
    };
    !sockets.is_empty() && (holds(root) || descendants(root).into_iter().any(|(pid, _)| holds(pid)))
}

/// The inode of the socket a line of `/proc/net/tcp{,6}` describes, when it listens on `port`.
fn listening_inode(line: &str, port: u16) -> Option<&str> {
    const LISTEN: &str = "0A";
    let fields: Vec<&str> = line.split_whitespace().collect();
    let (_, local_port) = fields.get(1)?.rsplit_once(':')?;
    let listening = u16::from_str_radix(local_port, 16).ok()? == port && fields.get(3)? == &LISTEN;
    listening.then(|| fields.get(9).copied()).flatten()
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::TcpListener;

    #[test]
    fn a_port_is_told_to_listen_by_the_process_holding_its_socket() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        assert!(listens_on(std::process::id(), port));
        let mut other = std::process::Command::new("sleep").arg("30").spawn().unwrap();
        let held_by_another = listens_on(other.id(), port);
        let _ = other.kill();
        let _ = other.wait();
        assert!(!held_by_another, "port {port} is this process's, not the child's");
        drop(listener);
        assert!(!listens_on(std::process::id(), port), "port {port} is closed");
    }
}
