//! What the server does to an object before writing it, as kube-apiserver's generic registry
//! and strategies do: checks it against the URL, fills the fields the server owns on create,
//! keeps those an update may not change, and validates.

use super::object::Object;
use super::resources::Kind;
use super::status::ApiError;
use super::time::Time;
use super::validation::{self, FieldError, quoted};

/// The characters of a generated name's suffix (no vowels, no look-alikes).
const SUFFIX_ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
const SUFFIX_LENGTH: usize = 5;
/// The longest generateName kept whole: a generated name stays within 63 characters.
const MAX_GENERATE_NAME: usize = 63 - SUFFIX_LENGTH;

/// Refuses an object whose namespace (or, with `name`, whose name) is not the URL's; fills in
/// the URL's namespace when the object has none.
pub(super) fn check_identity<K: Kind>(
    object: &mut Object<K>,
    namespace: Option<&str>,
    name: Option<&str>,
) -> Result<(), ApiError> {
    if let Some(name) = name.filter(|name| *name != object.metadata.name) {
        return Err(ApiError::bad_request(format!(
            "the name of the object ({}) does not match the name on the URL ({name})",
            object.metadata.name
        )));
    }
    match namespace {
        Some(namespace) if object.metadata.namespace.is_empty() => {
            object.metadata.namespace = namespace.to_string();
        }
        Some(namespace) if object.metadata.namespace != namespace => {
            return Err(ApiError::bad_request(
                "the namespace of the provided object does not match the namespace sent on the \
                 request",
            ));
        }
        _ => {}
    }
    Ok(())
}

/// A resourceVersion as a precondition: `None` when empty or "0"; an unparsable one fails as
/// kube-apiserver's versioner fails it.
pub(super) fn precondition(resource_version: &str) -> Result<Option<i64>, ApiError> {
    match resource_version {
        "" | "0" => Ok(None),
        text => text
            .parse::<u64>()
            .ok()
            .and_then(|version| i64::try_from(version).ok())
            .map(Some)
            .ok_or_else(|| {
                ApiError::unconverted(&format!(
                    "strconv.ParseUint: parsing {text:?}: invalid syntax"
                ))
            }),
    }
}

/// A name from `prefix` and five random characters.
pub(super) fn generate_name(prefix: &str) -> String {
    let mut name: String = prefix.chars().take(MAX_GENERATE_NAME).collect();
    let suffix = (0..SUFFIX_LENGTH)
        .map(|_| char::from(SUFFIX_ALPHABET[fastrand::usize(..SUFFIX_ALPHABET.len())]));
    name.extend(suffix);
    name
}

/// A random UUID (version 4), as kube-apiserver gives each object.
fn new_uid() -> String {
    let mut bytes: [u8; 16] = fastrand::u128(..).to_be_bytes();
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    let hex: String = bytes.iter().map(|byte| format!("{byte:02x}")).collect();
    format!("{}-{}-{}-{}-{}", &hex[..8], &hex[8..12], &hex[12..16], &hex[16..20], &hex[20..])
}

/// Fills the fields the server owns on create: a new uid and the creation time; clears those
/// a create cannot set.
pub(super) fn prepare_for_create<K: Kind>(object: &mut Object<K>) {
    let meta = &mut object.metadata;
    meta.uid = new_uid();
    meta.creation_timestamp = Some(Time::now());
    meta.deletion_timestamp = None;
    meta.deletion_grace_period_seconds = None;
    meta.generation = 0;
}

/// Keeps the fields an update cannot change from the stored object `old`.
fn prepare_for_update<K: Kind>(object: &mut Object<K>, old: &Object<K>) {
    let meta = &mut object.metadata;
    if meta.uid.is_empty() {
        meta.uid = old.metadata.uid.clone();
    }
    meta.creation_timestamp = old.metadata.creation_timestamp;
    meta.deletion_timestamp = old.metadata.deletion_timestamp;
    meta.deletion_grace_period_seconds = old.metadata.deletion_grace_period_seconds;
    meta.generation = old.metadata.generation;
}

/// Readies `next` to replace `current` (PUT and PATCH): a `precondition` other than the
/// stored revision is a conflict; then the fields the server keeps, and validation.
pub(super) fn replacing<K: Kind>(
    next: &mut Object<K>,
    current: &super::storage::Current<K>,
    precondition: Option<i64>,
    name: &str,
) -> Result<(), ApiError> {
    if precondition.is_some_and(|version| version != current.revision) {
        return Err(ApiError::modified(K::RESOURCE, name));
    }
    prepare_for_update(next, &current.object);
    validate_update(next, &current.object)
}

/// Validates an object to be created.
pub(super) fn validate_create<K: Kind>(object: &Object<K>) -> Result<(), ApiError> {
    let mut errors = validation::object_meta(&object.metadata);
    errors.extend(K::validate(object));
    refuse(object, &errors)
}

/// Validates an update of `old` to `object`.
fn validate_update<K: Kind>(object: &Object<K>, old: &Object<K>) -> Result<(), ApiError> {
    let mut errors = validation::object_meta(&object.metadata);
    if object.metadata.uid != old.metadata.uid {
        let uid = quoted(&object.metadata.uid);
        errors.push(FieldError::invalid("metadata.uid", uid, "field is immutable"));
    }
    errors.extend(K::validate(object));
    refuse(object, &errors)
}

fn refuse<K: Kind>(object: &Object<K>, errors: &[FieldError]) -> Result<(), ApiError> {
    match errors {
        [] => Ok(()),
        errors => Err(ApiError::invalid(K::RESOURCE, &object.metadata.name, errors)),
    }
}
