//! Starting the command as a process of its own would start: no signal blocked, and SIGPIPE
//! acting by default.

use std::ffi::CString;
use std::os::unix::ffi::OsStringExt;

use anyhow::Context;
use nix::spawn::{PosixSpawnAttr, PosixSpawnFileActions, PosixSpawnFlags, posix_spawnp};
use nix::sys::signal::{SigSet, Signal};
use nix::unistd::Pid;

/// Starts `program` with `args`, this process's variables and standard streams, looked up in
/// `PATH` if its name has no slash. The supervisor blocks every signal and ignores SIGPIPE, as
/// a Rust program does; the command gets neither, and a spawn through the standard library
/// would pass the mask on.
pub fn spawn(program: &str, args: &[String]) -> anyhow::Result<Pid> {
    let argv = std::iter::once(program)
        .chain(args.iter().map(String::as_str))
        .map(|arg| CString::new(arg).context("an argument holds a NUL byte"))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let env = std::env::vars_os()
        .map(|(mut pair, value)| {
            pair.push("=");
            pair.push(value);
            CString::new(pair.into_vec()).context("a variable holds a NUL byte")
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    let mut attr = PosixSpawnAttr::init()?;
    attr.set_sigmask(&SigSet::empty())?;
    attr.set_sigdefault(&SigSet::from(Signal::SIGPIPE))?;
    attr.set_flags(
        PosixSpawnFlags::POSIX_SPAWN_SETSIGMASK | PosixSpawnFlags::POSIX_SPAWN_SETSIGDEF,
    )?;
    let pid = posix_spawnp(&argv[0], &PosixSpawnFileActions::init()?, &attr, &argv, &env)
        .map_err(|errno| std::io::Error::from_raw_os_error(errno as i32))
        .with_context(|| format!("cannot run {program:?}"))?;
    Ok(pid)
}
