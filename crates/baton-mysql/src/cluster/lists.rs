//! Statements over lists of rows: their placeholders, and how many rows one statement takes.

use crate::queries::expand;

/// The most rows one statement lists, so that no statement nears the server's limits on
/// placeholders (65,535) or packet size.
pub(super) const MOST_ROWS: usize = 1000;

/// `statement` with one placeholder per row in place of `/*ids*/` (and of `/*seqs*/` and
/// `/*names*/`, which name what the rows are).
pub(crate) fn ids(statement: &str, count: usize) -> String {
    ["/*ids*/", "/*seqs*/", "/*names*/", "/*batches*/"]
        .iter()
        .fold(statement.to_owned(), |text, marker| expand(&text, marker, "?", ", ", count))
}

/// `statement` with one `WHEN ? THEN ?` per row in place of `/*cases*/`, and one placeholder
/// per row in place of `/*ids*/`.
pub(crate) fn cases(statement: &str, count: usize) -> String {
    ids(&expand(statement, "/*cases*/", "WHEN ? THEN ?", " ", count), count)
}

/// `statement` with `count` copies of `row` in place of `/*rows*/`.
pub(super) fn rows(statement: &str, row: &str, count: usize) -> String {
    expand(statement, "/*rows*/", row, ", ", count)
}
