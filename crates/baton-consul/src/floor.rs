//! A plain Consul lock, sent by the store's own client: the floor that benchmarks measure lease
//! operations against.

use std::time::Duration;

use baton_core::{Error, Result};

use crate::acquire::check_session_ttl;
use crate::client::KvWrite;
use crate::store::ConsulLeaseStore;

/// A plain lock on one key: a session of its own, the key acquired and released with it. Not a
/// lease: no record, no token, no history.
#[derive(Debug)]
pub struct PlainLock {
    store: ConsulLeaseStore,
    key: String,
    session: String,
}

impl ConsulLeaseStore {
    /// Takes `key` (outside the store's prefix) as a plain lock: a session of `ttl` created, the
    /// key acquired with it. Fails if the key is held.
    pub async fn plain_lock(&self, key: &str, ttl: Duration) -> Result<PlainLock> {
        if key.starts_with(&format!("{}/", self.prefix())) {
            return Err(Error::invalid_input(format!(
                "key {key:?} is baton's: use a key outside {}/",
                self.prefix()
            )));
        }
        let ttl = check_session_ttl(ttl)?;
        let consul = &self.inner.consul;
        let (session, _) = consul.create_session(key, ttl).await?;
        let (acquired, _) = consul.write(key, b"", KvWrite::Acquire(&session)).await?;
        let lock = PlainLock { store: self.clone(), key: key.to_string(), session };
        match acquired {
            true => Ok(lock),
            false => {
                lock.release().await?;
                Err(Error::new(baton_core::ErrorKind::Conflict, format!("key {key:?} is held")))
            }
        }
    }
}

impl PlainLock {
    /// Renews the lock's session; fails if it no longer exists.
    pub async fn renew(&self) -> Result<()> {
        match self.store.inner.consul.renew_session(&self.session).await? {
            Some(_) => Ok(()),
            None => Err(Error::lease_lost(format!("the session of key {:?} is gone", self.key))),
        }
    }

    /// Releases the key and destroys the session.
    pub async fn release(self) -> Result<()> {
        let consul = &self.store.inner.consul;
        consul.write(&self.key, b"", KvWrite::Release(&self.session)).await?;
        consul.destroy_session(&self.session).await?;
        Ok(())
    }
}
