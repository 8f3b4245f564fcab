//! The namespace's fencing-token counter: an annotation on one Lease object of its own
//! ([`TOKENS_OBJECT`]), raised under that object's `resourceVersion` before every acquisition.
//!
//! Tokens only grow along the writes that grant a lease: an acquisition reads the lease, then
//! reserves a token, then writes the lease under the `resourceVersion` it read. A later grant
//! must have read that write (or its compare-and-set fails), so its reservation came after the
//! earlier one's and is greater. The counter outlives the lease objects, so deleting and
//! recreating a lease does not reset its tokens; a counter created anew starts above the token
//! on every lease baton wrote in the namespace, so deleting the counter while leases exist does
//! not either, whichever of them is deleted afterwards. A reservation whose grant then fails is
//! skipped: tokens have gaps, never repeats.

use std::collections::BTreeMap;
use std::sync::Mutex;

use baton_core::{Error, ErrorKind, FencingToken, Result};
use k8s_openapi::api::coordination::v1::Lease as LeaseObject;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use crate::client::{Failure, Kube};
use crate::names::TOKENS_OBJECT;
use crate::record::TOKEN;

/// Reservations tried before racing acquisitions are reported as a conflict.
const ATTEMPTS: usize = 64;

/// The counter object as this store last wrote it: the basis of the next reservation, so that
/// an uncontended reservation is one write.
#[derive(Default)]
pub(crate) struct Tokens {
    last: Mutex<Option<LeaseObject>>,
}

impl Tokens {
    fn cached(&self) -> Option<LeaseObject> {
        self.last.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).clone()
    }

    fn cache(&self, object: Option<LeaseObject>) {
        *self.last.lock().unwrap_or_else(|poisoned| poisoned.into_inner()) = object;
    }

    /// Reserves a token greater than every token reserved before and than `floor`.
    pub(crate) async fn reserve(
        &self,
        kube: &Kube,
        floor: Option<FencingToken>,
    ) -> Result<FencingToken> {
        let floor = floor.map_or(0, FencingToken::get);
        for _ in 0..ATTEMPTS {
            let current = match self.cached() {
                Some(object) => Some(object),
                None => kube
                    .get(TOKENS_OBJECT)
                    .await
                    .map_err(|failure| failure.into_error("reading the fencing-token counter"))?,
            };
            let floor = match current {
                Some(_) => floor,
                None => floor.max(highest_on_leases(kube).await?),
            };
            let next = value(current.as_ref())?.max(floor) + 1;
            let object = with_value(current.as_ref(), &kube.namespace, next);
            let written = match current {
                Some(_) => kube.replace(TOKENS_OBJECT, &object).await,
                None => kube.create(&object).await,
            };
            match written {
                Ok(written) => {
                    self.cache(Some(written));
                    return FencingToken::new(next);
                }
                // Raised by another acquisition, or deleted, since it was read: read it again.
                Err(Failure::Conflict) => self.cache(None),
                Err(Failure::NotFound(_)) if current.is_some() => self.cache(None),
                Err(failure) => {
                    self.cache(None);
                    return Err(failure.into_error("raising the fencing-token counter"));
                }
            }
        }
        Err(Error::new(
            ErrorKind::Conflict,
            format!(
                "the fencing-token counter {TOKENS_OBJECT} changed under {ATTEMPTS} reservations in a row; try again"
            ),
        ))
    }
}

/// The highest token on any Lease baton wrote in the namespace: where a counter created anew
/// starts, so that a counter deleted while leases exist does not reset their tokens, however
/// the leases are deleted later.
async fn highest_on_leases(kube: &Kube) -> Result<u64> {
    let (objects, _) =
        kube.list().await.map_err(|failure| failure.into_error("reading the leases' tokens"))?;
    let mut highest = 0;
    for object in objects {
        highest = highest.max(value(Some(&object))?);
    }
    Ok(highest)
}

/// The counter's value (0 before the first reservation), or a lease's token annotation.
fn value(object: Option<&LeaseObject>) -> Result<u64> {
    let text = object.and_then(|object| object.metadata.annotations.as_ref()?.get(TOKEN));
    match text {
        None => Ok(0),
        Some(text) => text.parse().map_err(|_| {
            Error::new(
                ErrorKind::Internal,
                format!("the fencing-token counter {TOKENS_OBJECT} holds {text:?}, not a number"),
            )
        }),
    }
}

/// The counter object raised to `value`, over `current` if it exists.
fn with_value(current: Option<&LeaseObject>, namespace: &str, value: u64) -> LeaseObject {
    let mut object = current.cloned().unwrap_or_else(|| LeaseObject {
        metadata: ObjectMeta {
            name: Some(TOKENS_OBJECT.to_string()),
            namespace: Some(namespace.to_string()),
            ..ObjectMeta::default()
        },
        spec: None,
    });
    object.metadata.managed_fields = None;
    object
        .metadata
        .annotations
        .get_or_insert_with(BTreeMap::new)
        .insert(TOKEN.to_string(), value.to_string());
    object
}
