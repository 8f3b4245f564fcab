//! Reading a whole listing, page after page.

use std::future::Future;

use baton_core::{Cursor, Page, Result};

/// The most items one page of a listing asks for.
pub(crate) const PAGE: u32 = 1000;

/// Every item of a listing: `page` is called with the cursor of each next page.
pub(crate) async fn all_pages<T, F, Fut>(mut page: F) -> Result<Vec<T>>
where
    F: FnMut(Option<Cursor>) -> Fut,
    Fut: Future<Output = Result<Page<T>>>,
{
    let mut items = Vec::new();
    let mut after = None;
    loop {
        let listed = page(after).await?;
        items.extend(listed.items);
        match listed.next {
            Some(next) => after = Some(next),
            None => return Ok(items),
        }
    }
}
