//! POST, PUT, PATCH and DELETE, each in kube-apiserver's order of checks: decoding (400), the
//! namespace's existence for a create (404, NamespaceLifecycle admission), validation (422),
//! then etcd's verdict on the write (409), with `dryRun=All` stopping short of writing.

use hyper::{Response, StatusCode};
use serde::Deserialize;

use super::codec;
use super::namespace::Namespace;
use super::patch::Patch;
use super::query::{Query, check_dry_run};
use super::resources::Kind;
use super::response::{self, HttpBody};
use super::status::{ApiError, Status};
use super::storage::Store;
use super::strategy;

/// How many names a create with `generateName` tries before giving up on collisions.
const GENERATE_ATTEMPTS: usize = 8;
/// kube-apiserver's storage refusing a create that carries a resourceVersion.
const VERSION_ON_CREATE: &str = "resourceVersion should not be set on objects to be created";

/// POST: creates the object in `body`; 409 if one of its name exists.
pub(super) async fn create<K: Kind>(
    store: &Store,
    namespace: Option<&str>,
    query: &Query,
    media_type: Option<&str>,
    body: &[u8],
) -> Result<Response<HttpBody>, ApiError> {
    let dry_run = query.dry_run("CreateOptions")?;
    codec::require_json(media_type)?;
    let mut object = codec::decode::<K>(body)?;
    strategy::check_identity(&mut object, namespace, None)?;
    require_namespace(store, namespace).await?;
    let versioned =
        object.metadata.resource_version.parse::<u64>().is_ok_and(|version| version != 0);
    let generated = object.metadata.name.is_empty() && !object.metadata.generate_name.is_empty();
    let mut attempt = 1;
    loop {
        let mut candidate = object.clone();
        if generated {
            candidate.metadata.name = strategy::generate_name(&candidate.metadata.generate_name);
        }
        strategy::prepare_for_create(&mut candidate);
        strategy::validate_create(&candidate)?;
        if versioned && !dry_run {
            return Err(ApiError::unconverted(VERSION_ON_CREATE));
        }
        let name = candidate.metadata.name.clone();
        let written = store
            .write::<K>(namespace, &name, dry_run, |current| match current {
                Some(_) => Err(ApiError::already_exists(K::RESOURCE, &name)),
                None => Ok(candidate.clone()),
            })
            .await;
        match written {
            Err(err) if generated && err.is_already_exists() && attempt < GENERATE_ATTEMPTS => {
                attempt += 1;
            }
            written => return Ok(response::json(StatusCode::CREATED, &written?.object)),
        }
    }
}

/// PUT: replaces the object `name` with `body`, conditionally on the body's resourceVersion
/// when it has one; creates it when it does not exist and the body has none.
pub(super) async fn update<K: Kind>(
    store: &Store,
    namespace: Option<&str>,
    name: &str,
    query: &Query,
    media_type: Option<&str>,
    body: &[u8],
) -> Result<Response<HttpBody>, ApiError> {
    let dry_run = query.dry_run("UpdateOptions")?;
    codec::require_json(media_type)?;
    let mut object = codec::decode::<K>(body)?;
    strategy::check_identity(&mut object, namespace, Some(name))?;
    let precondition = strategy::precondition(&object.metadata.resource_version)?;
    let namespace_exists = match namespace {
        Some(namespace) => store.namespace_exists(namespace).await?,
        None => true,
    };
    let written = store
        .write::<K>(namespace, name, dry_run, |current| {
            let mut next = object.clone();
            match current {
                None if precondition.is_some() => {
                    return Err(ApiError::not_found(K::RESOURCE, name));
                }
                None if !namespace_exists => {
                    let namespace = namespace.unwrap_or_default();
                    return Err(ApiError::not_found(Namespace::RESOURCE, namespace));
                }
                None => {
                    strategy::prepare_for_create(&mut next);
                    strategy::validate_create(&next)?;
                }
                Some(current) => strategy::replacing(&mut next, current, precondition, name)?,
            }
            Ok(next)
        })
        .await?;
    let status = if written.created { StatusCode::CREATED } else { StatusCode::OK };
    Ok(response::json(status, &written.object))
}

/// PATCH: applies `body` to the object `name` as it is stored; a resourceVersion the patched
/// object carries is a precondition. A lost race applies the patch again to the object that
/// won.
pub(super) async fn patch<K: Kind>(
    store: &Store,
    namespace: Option<&str>,
    name: &str,
    query: &Query,
    media_type: Option<&str>,
    body: &[u8],
) -> Result<Response<HttpBody>, ApiError> {
    let dry_run = query.dry_run("PatchOptions")?;
    let patch = Patch::parse(media_type, body)?;
    let written = store
        .write::<K>(namespace, name, dry_run, |current| {
            let current = current.ok_or_else(|| ApiError::not_found(K::RESOURCE, name))?;
            let mut document = current.object.to_value();
            patch.apply(&mut document)?;
            let mut next = codec::decode_value::<K>(document)?;
            strategy::check_identity(&mut next, namespace, Some(name))?;
            let precondition = strategy::precondition(&next.metadata.resource_version)?;
            strategy::replacing(&mut next, current, precondition, name)?;
            Ok(next)
        })
        .await?;
    Ok(response::json(StatusCode::OK, &written.object))
}

/// The parts of `DeleteOptions` honoured; grace periods and propagation policies do not apply
/// to these kinds.
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct DeleteOptions {
    #[serde(default)]
    preconditions: Option<Preconditions>,
    #[serde(default)]
    dry_run: Vec<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Preconditions {
    uid: Option<String>,
    resource_version: Option<String>,
}

/// DELETE: deletes the object `name` if the preconditions in the body's `DeleteOptions` hold;
/// answers a `Success` status naming it, as kube-apiserver does for kinds deleted at once.
pub(super) async fn delete<K: Kind>(
    store: &Store,
    namespace: Option<&str>,
    name: &str,
    query: &Query,
    body: &[u8],
) -> Result<Response<HttpBody>, ApiError> {
    let options: DeleteOptions = match body.iter().all(u8::is_ascii_whitespace) {
        true => DeleteOptions::default(),
        false => serde_json::from_slice(body)
            .map_err(|err| ApiError::bad_request(format!("DeleteOptions: {err}")))?,
    };
    let body_dry_run: Vec<&str> = options.dry_run.iter().map(String::as_str).collect();
    let dry_run = query.dry_run("DeleteOptions")? | check_dry_run(&body_dry_run, "DeleteOptions")?;
    let preconditions = options.preconditions;
    let deleted = store
        .delete::<K>(namespace, name, dry_run, |current| {
            let meta = &current.object.metadata;
            let Some(preconditions) = &preconditions else { return Ok(()) };
            if let Some(uid) = preconditions.uid.as_ref().filter(|uid| **uid != meta.uid) {
                let why = format!(
                    "the UID in the precondition ({uid}) does not match the UID in record ({}). \
                     The object might have been deleted and then recreated",
                    meta.uid
                );
                return Err(ApiError::precondition_failed(K::RESOURCE, name, why));
            }
            let version = &meta.resource_version;
            if let Some(expected) =
                preconditions.resource_version.as_ref().filter(|v| *v != version)
            {
                let why = format!(
                    "the ResourceVersion in the precondition ({expected}) does not match the \
                     ResourceVersion in record ({version}). The object might have been modified"
                );
                return Err(ApiError::precondition_failed(K::RESOURCE, name, why));
            }
            Ok(())
        })
        .await?;
    let object = deleted.ok_or_else(|| ApiError::not_found(K::RESOURCE, name))?;
    let status = Status::deleted(K::RESOURCE, object.metadata.name, object.metadata.uid);
    Ok(response::json(StatusCode::OK, &status))
}

/// NamespaceLifecycle admission: nothing is created in a namespace that does not exist.
async fn require_namespace(store: &Store, namespace: Option<&str>) -> Result<(), ApiError> {
    match namespace {
        Some(namespace) if !store.namespace_exists(namespace).await? => {
            Err(ApiError::not_found(Namespace::RESOURCE, namespace))
        }
        _ => Ok(()),
    }
}
