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

/// `items` with the last one repeated up to the next power of two, for a statement that lists
/// them (an `IN` list or `CASE` arms, where a row listed twice changes nothing), so that its
/// variants stay few enough to be kept prepared on each connection. A statement prepared for
/// one use is closed after it with a message the server does not answer, and since sqlx does
/// not set `TCP_NODELAY`, the next statement's write then waits for the server's delayed
/// acknowledgement of that message (about 40 ms).
pub(crate) fn padded<T: Copy>(items: &[T]) -> Vec<T> {
    let mut padded = items.to_vec();
    if let Some(&last) = items.last() {
        padded.resize(items.len().next_power_of_two(), last);
    }
    padded
}

/// `statement` with `count` copies of `row` in place of `/*rows*/`.
pub(super) fn rows(statement: &str, row: &str, count: usize) -> String {
    expand(statement, "/*rows*/", row, ", ", count)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_list_is_padded_with_its_last_item_to_a_power_of_two() {
        assert_eq!(padded::<i64>(&[]), Vec::<i64>::new());
        assert_eq!(padded(&[7]), vec![7]);
        assert_eq!(padded(&[1, 2, 3]), vec![1, 2, 3, 3]);
        assert_eq!(padded(&[1, 2, 3, 4]), vec![1, 2, 3, 4]);
        assert_eq!(padded(&[1, 2, 3, 4, 5]).len(), 8);
    }
}
