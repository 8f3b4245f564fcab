//! What several of the runtime's test files share.

use baton::Error;
use baton::core::layer::{CallFuture, Layer};

/// Refuses every acquisition, as a store that does not accept this holder would: a campaign
/// over it stops for good.
pub struct Refusing;

impl Layer for Refusing {
    fn call<'a, T: Send + 'a>(
        &'a self,
        op: &'static str,
        call: CallFuture<'a, T>,
    ) -> CallFuture<'a, T> {
        match op {
            "lease_acquire" => {
                Box::pin(async { Err(Error::invalid_input("the holder is refused")) })
            }
            _ => call,
        }
    }
}
