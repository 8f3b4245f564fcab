//! Objects in etcd as kube-apiserver keeps them: JSON at `/registry/<resource>/<namespace>/<name>`,
//! without a resourceVersion, which is the key's `mod_revision` when read. Every write is a
//! transaction conditioned on the revision read, retried from what etcd answers when another
//! write won (kube-apiserver's `GuaranteedUpdate`), so etcd decides every race.

use super::gateway::{Condition, Gateway, GatewayError, Kv, Outcome};
use super::gateway_watch::GatewayWatch;
use super::namespace::Namespace;
use super::object::Object;
use super::resources::Kind;
use super::status::ApiError;

/// An object as stored: decoded, with its resourceVersion, and its stored bytes.
pub(super) struct Current<K> {
    pub(super) object: Object<K>,
    pub(super) revision: i64,
    data: Vec<u8>,
}

/// The result of a write.
pub(super) struct Written<K> {
    /// The object as written, with its new resourceVersion (none for a dry run that creates).
    pub(super) object: Object<K>,
    /// Whether the write created the object.
    pub(super) created: bool,
}

/// The objects in etcd.
pub(super) struct Store {
    gateway: Gateway,
}

impl Store {
    /// The objects kept in the etcd member on `port`.
    pub(super) fn new(port: u16) -> Store {
        Store { gateway: Gateway::new(port) }
    }

    /// The object `name`, if it exists.
    pub(super) async fn get<K: Kind>(
        &self,
        namespace: Option<&str>,
        name: &str,
    ) -> Result<Option<Current<K>>, ApiError> {
        let (kv, _) = self.gateway.get(&K::RESOURCE.key(namespace, name)).await?;
        kv.map(decode).transpose()
    }

    /// The objects in `namespace` (or all), in key order, and the revision they were read at
    /// (`at`, when given: an older revision, 410 if compacted away).
    pub(super) async fn list<K: Kind>(
        &self,
        namespace: Option<&str>,
        at: Option<i64>,
    ) -> Result<(Vec<Object<K>>, i64), ApiError> {
        let prefix = K::RESOURCE.prefix(namespace);
        let (kvs, revision) = self.gateway.list(&prefix, at).await.map_err(|err| match err {
            GatewayError::Compacted => {
                ApiError::expired("The resourceVersion for the provided list is too old.".into())
            }
            err => err.into(),
        })?;
        let objects = kvs.into_iter().map(|kv| decode(kv).map(|current| current.object));
        Ok((objects.collect::<Result<_, _>>()?, at.unwrap_or(revision)))
    }

    /// Whether the namespace `name` exists.
    pub(super) async fn namespace_exists(&self, name: &str) -> Result<bool, ApiError> {
        Ok(self.get::<Namespace>(None, name).await?.is_some())
    }

    /// Writes the object `name` as `decide` makes it from the stored one (`None` if absent),
    /// which it may refuse. When another write wins the race, `decide` is asked again with
    /// the object that won. An object equal to the stored one is not written (its
    /// resourceVersion stays), as kube-apiserver skips such no-op updates. A dry run decides
    /// but writes nothing.
    pub(super) async fn write<K: Kind>(
        &self,
        namespace: Option<&str>,
        name: &str,
        dry_run: bool,
        mut decide: impl FnMut(Option<&Current<K>>) -> Result<Object<K>, ApiError>,
    ) -> Result<Written<K>, ApiError> {
        let key = K::RESOURCE.key(namespace, name);
        let mut current = self.get::<K>(namespace, name).await?;
        loop {
            let mut object = decide(current.as_ref())?;
            object.metadata.resource_version.clear();
            let data = serde_json::to_vec(&object).expect("an object serializes");
            let created = current.is_none();
            if let Some(current) = current.as_ref().filter(|current| current.data == data) {
                return Ok(Written { object: current.object.clone(), created });
            }
            if dry_run {
                if let Some(current) = &current {
                    object.metadata.resource_version = current.revision.to_string();
                }
                return Ok(Written { object, created });
            }
            let condition = match &current {
                Some(current) => Condition::ModifiedAt(current.revision),
                None => Condition::Absent,
            };
            match self.gateway.put_if(&key, condition, &data).await? {
                Outcome::Applied(revision) => {
                    object.metadata.resource_version = revision.to_string();
                    return Ok(Written { object, created });
                }
                Outcome::Lost(now) => current = now.map(decode).transpose()?,
            }
        }
    }

    /// Deletes the object `name` if `check` allows it, asking again when another write changed
    /// it meanwhile; the object as it was, or `None` if there was none. A dry run checks but
    /// deletes nothing.
    pub(super) async fn delete<K: Kind>(
        &self,
        namespace: Option<&str>,
        name: &str,
        dry_run: bool,
        mut check: impl FnMut(&Current<K>) -> Result<(), ApiError>,
    ) -> Result<Option<Object<K>>, ApiError> {
        let key = K::RESOURCE.key(namespace, name);
        let mut current = self.get::<K>(namespace, name).await?;
        loop {
            let Some(stored) = current else { return Ok(None) };
            check(&stored)?;
            if dry_run {
                return Ok(Some(stored.object));
            }
            match self.gateway.delete_if(&key, stored.revision).await? {
                Outcome::Applied(_) => return Ok(Some(stored.object)),
                Outcome::Lost(now) => current = now.map(decode).transpose()?,
            }
        }
    }

    /// Watches the objects of kind `K` in `namespace` (or all) from `start_revision` on.
    pub(super) async fn watch<K: Kind>(
        &self,
        namespace: Option<&str>,
        start_revision: i64,
    ) -> Result<GatewayWatch, ApiError> {
        let prefix = K::RESOURCE.prefix(namespace);
        Ok(GatewayWatch::open(&self.gateway, &prefix, start_revision).await?)
    }

    /// Compacts etcd's history at its current revision (already done if nothing was written
    /// since the last compaction).
    pub(super) async fn compact(&self) -> Result<(), GatewayError> {
        let revision = self.gateway.revision().await?;
        match self.gateway.compact(revision).await {
            Err(GatewayError::Compacted) => Ok(()),
            compacted => compacted,
        }
    }
}

/// A stored value as an object of kind `K`, its resourceVersion its `mod_revision`.
pub(super) fn decode<K: Kind>(kv: Kv) -> Result<Current<K>, ApiError> {
    let mut object: Object<K> = serde_json::from_slice(&kv.value).map_err(|err| {
        ApiError::internal(format!("a stored {} is unreadable: {err}", K::RESOURCE.kind))
    })?;
    object.kind = K::RESOURCE.kind.to_string();
    object.api_version = K::RESOURCE.api_version();
    object.metadata.resource_version = kv.mod_revision.to_string();
    Ok(Current { object, revision: kv.mod_revision, data: kv.value })
}
