//! A plain compare-and-set of one key, sent by the store's own client: the floor that
//! benchmarks measure lease operations against; and the cluster's revision, which counts the
//! writes they make.

use baton_core::{Error, Result};

use crate::store::EtcdLeaseStore;
use crate::wire::{op, txn};

impl EtcdLeaseStore {
    /// Writes `value` to `key` (deletes the key when `value` is `None`) in one transaction, if
    /// the key was last written at `revision` (0: it does not exist); answers the revision
    /// written, or `None` when the key had changed. Keys under `baton/` are refused.
    ///
    /// Not a lease operation: it is the one-key transaction a plain lock sends, for measuring
    /// baton's operations against it on the same client.
    pub async fn compare_and_set(
        &self,
        key: &str,
        revision: i64,
        value: Option<&[u8]>,
    ) -> Result<Option<i64>> {
        if key.starts_with("baton/") {
            return Err(Error::invalid_input(format!(
                "key {key:?} is baton's: use a key outside baton/"
            )));
        }
        let key = key.as_bytes();
        let write = match value {
            Some(value) => op::put(key, value, 0),
            None => op::delete(key),
        };
        let request = txn(vec![op::written_at(key, revision)], vec![write], vec![]);
        let answer = self
            .inner
            .client
            .txn(&request, format!("writing key {:?}", String::from_utf8_lossy(key)))
            .await?;
        Ok(answer.succeeded.then_some(answer.header.revision))
    }

    /// The cluster's revision: every transaction that writes raises it by one, so the
    /// difference between two readings counts the writes in between. Reads one key outside
    /// `baton/`; writes nothing.
    pub async fn revision(&self) -> Result<i64> {
        let request = txn(vec![], vec![op::get(b"baton-revision")], vec![]);
        let answer = self.inner.client.txn(&request, "reading the revision").await?;
        Ok(answer.header.revision)
    }
}
