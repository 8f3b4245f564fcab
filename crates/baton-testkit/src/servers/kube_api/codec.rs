//! Reading request bodies as kube-apiserver's decoder reads them: JSON only; kind and apiVersion
//! taken from the URL when absent and refused when they name another; typed fields checked and
//! unknown ones dropped; errors worded as the real decoder's.

use hyper::HeaderMap;
use hyper::header::CONTENT_TYPE;
use serde_json::Value;

use super::object::Object;
use super::resources::Kind;
use super::status::ApiError;

/// The body media types taken for creates and updates.
const JSON: &str = "application/json";
/// How much of an unreadable body an error quotes.
const SUMMARY_BYTES: usize = 30;

/// The request's media type, without parameters; `None` when it sends none.
pub(super) fn media_type(headers: &HeaderMap) -> Option<String> {
    let value = headers.get(CONTENT_TYPE)?.to_str().unwrap_or_default();
    let media_type = value.split(';').next().unwrap_or_default().trim();
    Some(media_type.to_ascii_lowercase())
}

/// Refuses a create or update body that is not JSON (none means JSON, as kube-apiserver
/// assumes).
pub(super) fn require_json(media_type: Option<&str>) -> Result<(), ApiError> {
    match media_type {
        None | Some("") | Some(JSON) | Some("*/*") => Ok(()),
        Some(_) => Err(ApiError::unsupported_media_type(&[JSON])),
    }
}

/// `body` as an object of kind `K`.
pub(super) fn decode<K: Kind>(body: &[u8]) -> Result<Object<K>, ApiError> {
    let value: Value = serde_json::from_slice(body).map_err(|err| {
        let summary = String::from_utf8_lossy(&body[..body.len().min(SUMMARY_BYTES)]).into_owned();
        let summary = if body.len() > SUMMARY_BYTES { format!("{summary} ...") } else { summary };
        ApiError::bad_request(format!(
            "the object provided is unrecognized (must be of type {}): couldn't get version/kind; \
             json parse error: {err} ({summary})",
            K::RESOURCE.kind
        ))
    })?;
    decode_value(value)
}

/// A JSON value (a body, or an object with a patch applied) as an object of kind `K`.
pub(super) fn decode_value<K: Kind>(value: Value) -> Result<Object<K>, ApiError> {
    let resource = K::RESOURCE;
    if !value.is_object() {
        return Err(ApiError::bad_request(format!(
            "the object provided is unrecognized (must be of type {}): couldn't get version/kind; \
             json parse error: expected an object",
            resource.kind
        )));
    }
    let expected = resource.api_version();
    let text =
        |field: &str| value.get(field).and_then(Value::as_str).unwrap_or_default().to_string();
    let (api_version, kind) = (text("apiVersion"), text("kind"));
    if !api_version.is_empty() && api_version != expected {
        return Err(ApiError::bad_request(format!(
            "the API version in the data ({api_version}) does not match the expected API version \
             ({expected})"
        )));
    }
    let version = resource.version;
    if !kind.is_empty() && kind != resource.kind {
        return Err(ApiError::bad_request(format!(
            "{kind} in version {version:?} cannot be handled as a {}: no kind {kind:?} is \
             registered for version {expected:?} in scheme \"pkg/api/legacyscheme/scheme.go:30\"",
            resource.kind
        )));
    }
    let mut object: Object<K> = serde_json::from_value(value).map_err(|err| {
        ApiError::bad_request(format!(
            "{} in version {version:?} cannot be handled as a {}: {err}",
            resource.kind, resource.kind
        ))
    })?;
    object.kind = resource.kind.to_string();
    object.api_version = expected;
    Ok(object)
}
