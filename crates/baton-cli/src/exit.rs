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
    eprintln!("baton: error: {}", line(err));
    let invalid = err
        .chain()
        .filter_map(|cause| cause.downcast_ref::<baton::Error>())
        .any(|cause| cause.kind() == ErrorKind::InvalidInput);
    ExitCode::from(if invalid { INVALID_INPUT } else { FAILURE })
}

/// The error and its causes on one line, down to the first [`baton::Error`]: a store's error
/// already says what its cause said, so the causes under it would only repeat it.
fn line(err: &anyhow::Error) -> String {
    let mut parts = Vec::new();
    for cause in err.chain() {
        parts.push(cause.to_string());
        if cause.downcast_ref::<baton::Error>().is_some() {
            break;
        }
    }
    parts.join(": ")
}

/// Reports a command-line error: help and version as clap prints them, a missing argument with
/// clap's usage, and a bad value on one line.
pub fn usage(err: clap::Error) -> ExitCode {
    use clap::error::ErrorKind as Clap;
    match err.kind() {
        Clap::DisplayHelp
        | Clap::DisplayVersion
        | Clap::MissingRequiredArgument
        | Clap::MissingSubcommand
        | Clap::DisplayHelpOnMissingArgumentOrSubcommand => {
            let _ = err.print();
            ExitCode::from(if err.use_stderr() { INVALID_INPUT } else { 0 })
        }
        _ => {
            let rendered = err.render().to_string();
            let line = rendered.lines().next().unwrap_or_default();
            // The accepted values, when clap lists them, stay on the same line.
            let accepted = rendered
                .lines()
                .map(str::trim)
                .find(|line| line.starts_with("[possible values:"))
                .map(|values| format!(" {values}"))
                .unwrap_or_default();
            // clap repeats the refused value whole: cut a long one like every other echo.
            let line = match err.get(clap::error::ContextKind::InvalidValue) {
                Some(clap::error::ContextValue::String(value))
                    if value.chars().count() > baton::core::echo::MAX_ECHO_CHARS =>
                {
                    line.replacen(&format!("'{value}'"), &baton::core::echo::quoted(value), 1)
                }
                _ => line.to_string(),
            };
            eprintln!("baton: {line}{accepted}");
            ExitCode::from(INVALID_INPUT)
        }
    }
}
