//! The supervisor that stands between baton and every command it runs, on Linux, so that no
//! command outlives the baton that guards it.
//!
//! baton starts a command as `baton supervise --parent PID -- CMD ARGS…`: a second process of
//! its own executable, leading a process group of its own, which starts the command in that
//! group and waits for it. The kernel signals the supervisor when baton dies, even by SIGKILL
//! (`PR_SET_PDEATHSIG`), and the supervisor then kills the whole group with SIGKILL: the
//! command, every process it started that stayed in the group, and itself. Otherwise the
//! supervisor stays out of the way: the command gets the arguments, variables, working
//! directory and standard streams baton gave the supervisor, the supervisor ends as the
//! command ended, and signals sent to the supervisor alone are passed on to the command.
//!
//! The parent-death signal cannot be set on the command itself: that takes code run between
//! `fork` and `exec`, which is `unsafe`, and it would reach the command only, not what the
//! command starts.

mod ending;
mod spawn;
mod watch;

use std::process::ExitCode;

use clap::Parser;
use nix::unistd::Pid;
use tokio::process::Command;

/// The hidden subcommand that runs the supervisor; it is not part of the documented command
/// line, and it is recognised before that is parsed.
const SUBCOMMAND: &str = "supervise";

/// The supervisor's command line, after [`SUBCOMMAND`].
#[derive(Debug, Parser)]
#[command(name = "baton supervise")]
struct Args {
    /// The process id of the baton that started the supervisor.
    #[arg(long, value_name = "PID")]
    parent: i32,
    /// The command and its arguments.
    #[arg(last = true, required = true, value_name = "CMD")]
    command: Vec<String>,
}

/// A command that runs `program` under a supervisor whose parent is this process: arguments,
/// variables, a working directory and standard streams set on it reach `program`.
pub fn command(program: &str) -> Command {
    // This very executable, even if its file has been replaced or removed since it started,
    // as an upgrade does under a running agent.
    let mut command = Command::new("/proc/self/exe");
    let parent = std::process::id().to_string();
    command.arg0("baton").args([SUBCOMMAND, "--parent", &parent, "--", program]);
    command
}

/// Runs the supervisor if this process was started as one, and answers its exit code;
/// answers `None` in any other process.
pub fn run_if_started_as_one() -> Option<ExitCode> {
    if std::env::args_os().nth(1)? != SUBCOMMAND {
        return None;
    }
    // The subcommand stands where clap expects the program's name.
    let args = match Args::try_parse_from(std::env::args_os().skip(1)) {
        Ok(args) => args,
        Err(err) => return Some(crate::exit::usage(err)),
    };
    Some(match watch::supervise(Pid::from_raw(args.parent), &args.command) {
        Ok(status) => ending::end_as(status),
        Err(err) => crate::exit::report(&err),
    })
}
