//! Token epochs, so that tokens keep rising when a lease blob is deleted: a token is
//! `epoch << 32 | count`, where the count rises in the lease blob's metadata with every claim
//! and the epoch is drawn once per blob creation from a counter in the metadata of the blob
//! `baton/epoch`, raised under its ETag. A blob created after another of the same name was
//! deleted draws a later epoch, so its first token is above every token of the one before.
//!
//! A counter found missing starts above the epoch of every lease blob in the container, so
//! deleting it alone resets nothing. Deleting it together with a lease blob resets that lease's
//! tokens: don't (a fence that remembers the highest token it accepted still refuses the
//! lower ones).

use std::collections::BTreeMap;

use baton_core::{Error, ErrorKind, Result};

use crate::client::{Client, Condition, Failure};
use crate::names::{EPOCH_BLOB, LEASE_PREFIX};
use crate::record::Record;

const EPOCH: &str = "batonepoch";
/// Attempts at raising the counter when other creations race for it.
const ATTEMPTS: usize = 8;

/// The base of the tokens of a blob created now: a new epoch, shifted.
pub(crate) async fn next_base(client: &Client) -> Result<u64> {
    for _ in 0..ATTEMPTS {
        let current = client
            .read(EPOCH_BLOB, false)
            .await
            .map_err(|f| f.into_error("reading the token epoch"))?;
        let (epoch, written) = match current {
            Some(blob) => {
                let text = blob.metadata.get(EPOCH).cloned().unwrap_or_default();
                let epoch: u64 = text.parse().map_err(|_| {
                    Error::new(
                        ErrorKind::Internal,
                        format!("blob {EPOCH_BLOB} holds epoch {text:?}, not baton's"),
                    )
                })?;
                let raised = BTreeMap::from([(EPOCH.to_string(), (epoch + 1).to_string())]);
                (
                    epoch + 1,
                    client
                        .set_metadata(EPOCH_BLOB, &raised, Condition::Matches(&blob.etag), None)
                        .await,
                )
            }
            None => {
                let epoch = highest_epoch(client).await? + 1;
                let first = BTreeMap::from([(EPOCH.to_string(), epoch.to_string())]);
                (
                    epoch,
                    client
                        .put(EPOCH_BLOB, Default::default(), &first, Condition::Absent, None)
                        .await,
                )
            }
        };
        match written {
            Ok(_) => return Ok(epoch << 32),
            // Another creation raised it first: read it again.
            Err(failure) if failure.is(412) || failure.is(409) => continue,
            // An epoch raised without an answer is only skipped by the next read.
            Err(failure) => return Err(failure.into_error("raising the token epoch")),
        }
    }
    Err(Error::new(
        ErrorKind::Conflict,
        "the token epoch kept changing while leases were created; try again",
    ))
}

/// The highest epoch among the lease blobs of the container.
async fn highest_epoch(client: &Client) -> Result<u64> {
    let mut highest = 0;
    let mut marker = None;
    loop {
        let (blobs, next) = client
            .list(LEASE_PREFIX, marker.as_deref())
            .await
            .map_err(|failure: Failure| failure.into_error("listing lease blobs"))?;
        for blob in blobs {
            highest = highest.max(Record::read(&blob.metadata)?.token >> 32);
        }
        match next {
            Some(next) => marker = Some(next),
            None => return Ok(highest),
        }
    }
}
