//! A closed standard output (`baton … | head -1`) ends the program quietly, as it does Unix
//! tools: with exit status 141 (128 + SIGPIPE, what a shell reports for a tool SIGPIPE
//! stopped), and no message or backtrace.

use std::os::fd::AsFd;

use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
use nix::sys::signal::Signal;

/// The exit status of a program whose standard output was closed by its reader.
pub const CLOSED: i32 = 128 + Signal::SIGPIPE as i32;

/// Installs a panic hook that exits with [`CLOSED`] when the panic came with standard output
/// closed by its reader (a print to it failed with a broken pipe), and reports any other panic
/// as before.
pub fn exit_quietly_when_closed() {
    let report = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if reader_gone() {
            std::process::exit(CLOSED);
        }
        report(info);
    }));
}

/// Whether standard output is a pipe or socket whose reading end is closed.
fn reader_gone() -> bool {
    let stdout = std::io::stdout();
    let mut fds = [PollFd::new(stdout.as_fd(), PollFlags::empty())];
    matches!(poll(&mut fds, PollTimeout::ZERO), Ok(1))
        && fds[0].revents().is_some_and(|events| events.contains(PollFlags::POLLERR))
}
