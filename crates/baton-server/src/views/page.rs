//! One page of a listing.

use baton::Page;
use serde::Serialize;

/// One page of a listing, in the store's order, with the cursor of the next page.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PageView<T> {
    /// The items of this page.
    pub items: Vec<T>,
    /// Pass as `after` to read the next page; `None` on the last page.
    pub next: Option<String>,
}

impl<T> PageView<T> {
    /// Converts every item of a store page.
    pub fn of<R>(page: &Page<R>) -> Self
    where
        T: for<'a> From<&'a R>,
    {
        PageView {
            items: page.items.iter().map(T::from).collect(),
            next: page.next.map(|cursor| cursor.to_string()),
        }
    }
}
