//! Exit codes and the one-line error report.

use std::process::ExitCode;

use baton::ErrorKind;

/// The lease is held by someone else and `--on-held fail` was given (EX_TEMPFAIL).
pub const HELD: u8 = 75;
/// Invalid input: a bad value on the command line.
pub const INVALID_INPUT: u8 = 2;
/// Any other failure.
pub const FAILURE: u8 = 1;

/// Prints the error on one line and picks the exit code from its kind.
pub fn report(err: &anyhow::Error) -> ExitCode {
    eprintln!("baton: error: {err:#}");
    let invalid = err
        .chain()
        .filter_map(|cause| cause.downcast_ref::<baton::Error>())
        .any(|cause| cause.kind() == ErrorKind::InvalidInput);
    ExitCode::from(if invalid { INVALID_INPUT } else { FAILURE })
}
