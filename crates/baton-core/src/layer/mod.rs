//! Layers around the store traits: one place to add behaviour to every call of a store (a
//! time limit, a test's pause gate, a probe), instead of a hand-written wrapper per trait that
//! forwards each method.
//!
//! A [`Layer`] sees each call as its operation's name and a boxed future; [`Layered`] applies
//! one to a [`LeaseStore`](crate::LeaseStore), a [`JobStore`](crate::JobStore) or a
//! [`ClusterStore`](crate::ClusterStore), forwarding every method (the batched ones included,
//! so a backend's batching is kept) and leaving subscriptions' feeds untouched: opening a feed
//! is a call, waiting on it is not.

mod cluster;
mod jobs;
mod lease;

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use crate::error::Result;

/// One store call in flight, as a layer receives it.
pub type CallFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T>> + Send + 'a>>;

/// Behaviour added around every call of a store.
pub trait Layer: Send + Sync + 'static {
    /// Runs `call`, the store operation named `op` (such as `lease_renew_all` or `claim`).
    fn call<'a, T: Send + 'a>(
        &'a self,
        op: &'static str,
        call: CallFuture<'a, T>,
    ) -> CallFuture<'a, T>;
}

impl<L: Layer> Layer for Arc<L> {
    fn call<'a, T: Send + 'a>(
        &'a self,
        op: &'static str,
        call: CallFuture<'a, T>,
    ) -> CallFuture<'a, T> {
        (**self).call(op, call)
    }
}

/// A store with a layer around every call. `S` is `dyn LeaseStore`, `dyn JobStore` or
/// `dyn ClusterStore`; the layered store implements the same trait.
pub struct Layered<S: ?Sized, L> {
    inner: Arc<S>,
    layer: L,
}

impl<S: ?Sized, L: Layer> Layered<S, L> {
    /// `inner` with `layer` around each of its calls.
    pub fn new(inner: Arc<S>, layer: L) -> Self {
        Layered { inner, layer }
    }

    /// The store under the layer.
    pub fn inner(&self) -> &Arc<S> {
        &self.inner
    }

    /// The layer.
    pub fn layer(&self) -> &L {
        &self.layer
    }

    /// Runs one call of the inner store through the layer.
    async fn through<'a, T: Send + 'a>(
        &'a self,
        op: &'static str,
        call: impl Future<Output = Result<T>> + Send + 'a,
    ) -> Result<T> {
        self.layer.call(op, Box::pin(call)).await
    }
}

impl<S: ?Sized, L> std::fmt::Debug for Layered<S, L> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Layered").finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests;
