//! Keyset pagination shared by every listing.

use crate::error::{Error, Result};

/// An opaque position in a listing; pass it back to get the next page.
///
/// Cursors are keyset positions (the id of the last item seen), so pages stay stable while new
/// records are appended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Cursor(i64);

impl Cursor {
    /// A cursor positioned after the record with this id.
    pub fn after(id: i64) -> Self {
        Cursor(id)
    }

    /// The id of the last record already seen.
    pub fn last_id(self) -> i64 {
        self.0
    }

    /// Parses a cursor as printed by its `Display` implementation.
    pub fn parse(text: &str) -> Result<Self> {
        text.strip_prefix('c')
            .filter(|digits| !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
            // Past the largest id there is nothing: the page is empty.
            .map(|digits| Cursor(digits.parse::<i64>().unwrap_or(i64::MAX)))
            .ok_or_else(|| {
                Error::invalid_input(format!(
                    "invalid cursor {}: expected a value printed as next_cursor, such as \"c42\"",
                    crate::echo::quoted(text)
                ))
            })
    }
}

impl std::fmt::Display for Cursor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "c{}", self.0)
    }
}

/// One page of a listing, oldest first, with the cursor of the next page if there is one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page<T> {
    /// The items of this page.
    pub items: Vec<T>,
    /// Where the next page starts, or `None` when this is the last page.
    pub next: Option<Cursor>,
}

impl<T> Page<T> {
    /// A page of at most `limit` items from `items`, read with one extra item to tell whether
    /// another page follows; `id` gives an item's keyset position.
    pub fn from_fetched(mut items: Vec<T>, limit: u32, id: impl Fn(&T) -> i64) -> Page<T> {
        let limit = limit as usize;
        let next = (limit > 0 && items.len() > limit).then(|| {
            items.truncate(limit);
            Cursor::after(id(&items[limit - 1]))
        });
        Page { items, next }
    }
}

/// The largest page size any listing returns.
pub const MAX_PAGE_SIZE: u32 = 1000;

/// Checks a requested page size against [`MAX_PAGE_SIZE`].
pub fn check_page_size(limit: u32) -> Result<u32> {
    if limit == 0 || limit > MAX_PAGE_SIZE {
        return Err(Error::invalid_input(format!(
            "invalid page size {limit}: expected 1 to {MAX_PAGE_SIZE}"
        )));
    }
    Ok(limit)
}

#[cfg(test)]
mod tests {
    use super::Cursor;

    #[test]
    fn a_cursor_is_c_and_decimal_digits() {
        assert_eq!(Cursor::parse("c42").unwrap(), Cursor::after(42));
        assert_eq!(Cursor::parse("c0042").unwrap(), Cursor::after(42));
        assert_eq!(Cursor::parse("c99999999999999999999999").unwrap(), Cursor::after(i64::MAX));
        for bad in ["", "c", "42", "c+5", "c-1", "c4 2", "c٣"] {
            let err = Cursor::parse(bad).unwrap_err();
            assert!(err.to_string().starts_with(&format!("invalid cursor {bad:?}")), "{err}");
        }
    }
}
