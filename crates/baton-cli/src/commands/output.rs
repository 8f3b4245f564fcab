//! Printing a record as JSON for `--output json`.

use serde::Serialize;

/// Prints `view` as indented JSON on stdout, followed by a newline.
pub fn print_json<T: Serialize>(view: &T) -> anyhow::Result<()> {
    println!("{}", serde_json::to_string_pretty(view)?);
    Ok(())
}
