//! How long ago something happened, on the store's clock.

use baton::StoreTime;

/// The time from `at` to `now`, to the millisecond, such as `1.25s ago`.
pub fn age(now: StoreTime, at: StoreTime) -> String {
    format!("{:?} ago", now.saturating_since(at))
}
