//! Ending as the command ended, so that baton reads the supervisor's exit status as the
//! command's own.

use std::process::ExitCode;

use nix::sys::prctl;
use nix::sys::signal::{SigSet, raise};
use nix::sys::wait::WaitStatus;

/// Exits with the command's exit code, or dies of the signal that killed it. A signal this
/// process ignores (SIGPIPE, which every Rust program ignores and which takes `unsafe` code to
/// restore) cannot kill it: the exit code is then 128 + the signal, which is what `baton exec`
/// reports for a command killed by it anyway.
pub fn end_as(status: WaitStatus) -> ExitCode {
    let signal = match status {
        WaitStatus::Exited(_, code) => {
            return ExitCode::from(u8::try_from(code).unwrap_or(u8::MAX));
        }
        WaitStatus::Signaled(_, signal, _) => signal,
        _ => return ExitCode::FAILURE,
    };
    // No core file of the supervisor when the command dumped one.
    let _ = prctl::set_dumpable(false);
    let _ = SigSet::from(signal).thread_unblock();
    let _ = raise(signal);
    ExitCode::from(u8::try_from(128 + signal as i32).unwrap_or(u8::MAX))
}
