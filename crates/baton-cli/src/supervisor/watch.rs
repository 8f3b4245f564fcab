//! The supervisor's watch: start the command, then act on every signal until the command
//! exits or baton dies.

use anyhow::Context;
use nix::errno::Errno;
use nix::sys::prctl;
use nix::sys::signal::{SigSet, Signal, kill, killpg};
use nix::sys::signalfd::{SfdFlags, SignalFd};
use nix::sys::wait::{WaitPidFlag, WaitStatus, waitpid};
use nix::unistd::{Pid, getpgid, getpgrp, getppid, setpgid};

use super::spawn::spawn;

/// The signal the kernel sends when the parent goes. Any that can be blocked would do: every
/// signal wakes the supervisor, which then checks whether its parent is still `parent`.
const PARENT_DEATH: Signal = Signal::SIGHUP;

/// Runs `argv` in this process's group and answers how it ended. Kills the group, this process
/// included, as soon as the parent is no longer `parent`.
pub fn supervise(parent: Pid, argv: &[String]) -> anyhow::Result<WaitStatus> {
    let (program, args) = argv.split_first().context("no command given after --")?;
    let signals = watch_signals().context("cannot supervise the command")?;
    // The parent-death signal fires when the thread that started this process exits, which
    // need not be the last thread of baton (an agent starts commands from any of its worker
    // threads). The parent process id, though, changes only when baton itself is gone.
    prctl::set_pdeathsig(PARENT_DEATH).context("cannot supervise the command")?;
    if getppid() != parent {
        kill_group();
    }
    let command = spawn(program, args)?;
    loop {
        let info = match signals.read_signal() {
            Ok(Some(info)) => info,
            Ok(None) | Err(Errno::EINTR) => continue,
            Err(err) => return Err(err).context("reading signals failed"),
        };
        if getppid() != parent {
            kill_group();
        }
        match Signal::try_from(i32::try_from(info.ssi_signo).unwrap_or(0)) {
            Ok(Signal::SIGCHLD) => {
                match waitpid(command, Some(WaitPidFlag::WNOHANG))
                    .context("waiting for the command")?
                {
                    WaitStatus::StillAlive => {}
                    ended => return Ok(ended),
                }
            }
            Ok(signal) if from_outside(info.ssi_pid, parent) => {
                let _ = kill(command, signal);
            }
            _ => {}
        }
    }
}

/// Makes this process lead a process group of its own (baton starts it so already) and has
/// every signal sent to it queued on the answered descriptor rather than acting. The command
/// starts with none blocked ([`spawn`]).
fn watch_signals() -> nix::Result<SignalFd> {
    setpgid(Pid::from_raw(0), Pid::from_raw(0))?;
    let all = SigSet::all();
    all.thread_block()?;
    SignalFd::with_flags(&all, SfdFlags::SFD_CLOEXEC)
}

/// Whether a signal sent by `sender` is for the command to receive too: not from the kernel
/// (0), not from baton, which signals the whole group, and not from a process of the group,
/// which signals the group too (`kill 0` in a script). What remains was sent to the supervisor
/// alone, as an operator's `kill` of the process seen in `ps`.
fn from_outside(sender: u32, parent: Pid) -> bool {
    let Ok(sender) = i32::try_from(sender).map(Pid::from_raw) else {
        return false;
    };
    sender.as_raw() != 0 && sender != parent && getpgid(Some(sender)) != Ok(getpgrp())
}

/// Kills the process group this process leads, this process included.
fn kill_group() -> ! {
    let _ = killpg(getpgrp(), Signal::SIGKILL);
    // Not reached: the signal is delivered to this process before `killpg` returns.
    std::process::exit(i32::from(crate::exit::FAILURE))
}
