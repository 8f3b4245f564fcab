//! Answers as kube-apiserver gives them when a request fails: a `Status` object with the
//! reason, a message worded as the real server words it, details naming the object, and the
//! matching HTTP code. [`Status`] also serves the success answer of a deletion.

use std::fmt;

use hyper::StatusCode;
use serde::Serialize;

use super::gateway::GatewayError;
use super::resources::ResourceType;
use super::validation::{FieldError, aggregate};

/// The reason kube-apiserver gives a conflicting update.
const OPTIMISTIC_LOCK: &str =
    "the object has been modified; please apply your changes to the latest version and try again";

/// A failed request.
#[derive(Debug)]
pub(super) struct ApiError {
    code: StatusCode,
    /// The `reason` field; empty for an error kube-apiserver passes on unconverted.
    reason: &'static str,
    message: String,
    details: Option<Box<Details>>,
}

/// The `details` of a `Status`: the object concerned and the causes.
#[derive(Serialize, Debug, Default)]
pub(super) struct Details {
    #[serde(skip_serializing_if = "String::is_empty")]
    pub(super) name: String,
    #[serde(skip_serializing_if = "str::is_empty")]
    pub(super) group: &'static str,
    /// The resource (plural) or, for validation and precondition errors, the kind.
    #[serde(skip_serializing_if = "str::is_empty")]
    pub(super) kind: &'static str,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub(super) uid: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    causes: Vec<Cause>,
}

#[derive(Serialize, Debug)]
struct Cause {
    #[serde(skip_serializing_if = "str::is_empty")]
    reason: &'static str,
    message: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    field: String,
}

/// A `Status` object.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Status {
    kind: &'static str,
    api_version: &'static str,
    metadata: EmptyMeta,
    status: &'static str,
    #[serde(skip_serializing_if = "String::is_empty")]
    message: String,
    #[serde(skip_serializing_if = "str::is_empty")]
    reason: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    details: Option<Box<Details>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    code: Option<u16>,
}

#[derive(Serialize)]
struct EmptyMeta {}

impl Status {
    /// The answer to a deletion done at once: `Success`, with the object's name and uid.
    pub(super) fn deleted(resource: &ResourceType, name: String, uid: String) -> Status {
        let details = Details {
            name,
            group: resource.group,
            kind: resource.plural,
            uid,
            ..Default::default()
        };
        Status {
            kind: "Status",
            api_version: "v1",
            metadata: EmptyMeta {},
            status: "Success",
            message: String::new(),
            reason: "",
            details: Some(Box::new(details)),
            code: None,
        }
    }
}

impl ApiError {
    fn new(code: StatusCode, reason: &'static str, message: String) -> ApiError {
        ApiError { code, reason, message, details: None }
    }

    fn with_details(mut self, details: Details) -> ApiError {
        self.details = Some(Box::new(details));
        self
    }

    /// With details naming the object `name` of `resource`.
    fn about(self, resource: &ResourceType, name: &str) -> ApiError {
        self.with_details(Details {
            name: name.to_string(),
            group: resource.group,
            kind: resource.plural,
            ..Default::default()
        })
    }

    /// Whether this is a 409 AlreadyExists.
    pub(super) fn is_already_exists(&self) -> bool {
        self.reason == "AlreadyExists"
    }

    /// The HTTP status code.
    pub(super) fn code(&self) -> StatusCode {
        self.code
    }

    /// The error as a `Status` object.
    pub(super) fn into_status(self) -> Status {
        Status {
            kind: "Status",
            api_version: "v1",
            metadata: EmptyMeta {},
            status: "Failure",
            message: self.message,
            reason: self.reason,
            details: self.details,
            code: Some(self.code.as_u16()),
        }
    }

    /// 404: the object does not exist.
    pub(super) fn not_found(resource: &ResourceType, name: &str) -> ApiError {
        let message = format!("{} {name:?} not found", resource.qualified_resource());
        ApiError::new(StatusCode::NOT_FOUND, "NotFound", message).about(resource, name)
    }

    /// 409: an object of that name exists already.
    pub(super) fn already_exists(resource: &ResourceType, name: &str) -> ApiError {
        let message = format!("{} {name:?} already exists", resource.qualified_resource());
        ApiError::new(StatusCode::CONFLICT, "AlreadyExists", message).about(resource, name)
    }

    /// 409: the update was made from an older version of the object than the stored one.
    pub(super) fn modified(resource: &ResourceType, name: &str) -> ApiError {
        let message = format!(
            "Operation cannot be fulfilled on {} {name:?}: {OPTIMISTIC_LOCK}",
            resource.qualified_resource()
        );
        ApiError::new(StatusCode::CONFLICT, "Conflict", message).about(resource, name)
    }

    /// 409: a deletion's precondition does not hold (worded, as kube-apiserver does, with the
    /// kind rather than the resource).
    pub(super) fn precondition_failed(
        resource: &ResourceType,
        name: &str,
        why: String,
    ) -> ApiError {
        let message = format!(
            "Operation cannot be fulfilled on {} {name:?}: {why}",
            resource.qualified_kind()
        );
        ApiError::new(StatusCode::CONFLICT, "Conflict", message).with_details(Details {
            name: name.to_string(),
            group: resource.group,
            kind: resource.kind,
            ..Default::default()
        })
    }

    /// 422: the object fails validation.
    pub(super) fn invalid(resource: &ResourceType, name: &str, errors: &[FieldError]) -> ApiError {
        let qualified = resource.qualified_kind();
        ApiError::invalid_as(qualified, resource.group, resource.kind, name, errors)
    }

    /// 422: the options of a request (such as `CreateOptions`) fail validation.
    pub(super) fn invalid_options(kind: &'static str, errors: &[FieldError]) -> ApiError {
        ApiError::invalid_as(format!("{kind}.meta.k8s.io"), "meta.k8s.io", kind, "", errors)
    }

    fn invalid_as(
        qualified: String,
        group: &'static str,
        kind: &'static str,
        name: &str,
        errors: &[FieldError],
    ) -> ApiError {
        let message = format!("{qualified} {name:?} is invalid: {}", aggregate(errors));
        let causes = errors
            .iter()
            .map(|error| Cause {
                reason: error.reason(),
                message: error.body(),
                field: error.field().to_string(),
            })
            .collect();
        let details = Details { name: name.to_string(), group, kind, causes, uid: String::new() };
        ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, "Invalid", message).with_details(details)
    }

    /// 422 from applying a JSON patch (kube-apiserver answers these without details).
    pub(super) fn patch_rejected(message: String) -> ApiError {
        let cause = Cause { reason: "", message: message.clone(), field: String::new() };
        let details = Details { causes: vec![cause], ..Default::default() };
        ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, "Invalid", message).with_details(details)
    }

    /// 400: the request cannot be understood.
    pub(super) fn bad_request(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, "BadRequest", message.into())
    }

    /// 401: no bearer token, or not the server's.
    pub(super) fn unauthorized() -> ApiError {
        ApiError::new(StatusCode::UNAUTHORIZED, "Unauthorized", "Unauthorized".into())
    }

    /// 403: the authorizer denies the request; `why` is its sentence.
    pub(super) fn forbidden(resource: &ResourceType, name: &str, why: String) -> ApiError {
        let qualified = resource.qualified_resource();
        let message = match name {
            "" => format!("{qualified} is forbidden: {why}"),
            name => format!("{qualified} {name:?} is forbidden: {why}"),
        };
        ApiError::new(StatusCode::FORBIDDEN, "Forbidden", message).about(resource, name)
    }

    /// 404: no such path.
    pub(super) fn path_not_found() -> ApiError {
        let message = "the server could not find the requested resource".to_string();
        ApiError::new(StatusCode::NOT_FOUND, "NotFound", message).with_details(Details::default())
    }

    /// 405: the path exists but not with this method.
    pub(super) fn method_not_allowed() -> ApiError {
        let message = "the server does not allow this method on the requested resource".to_string();
        ApiError::new(StatusCode::METHOD_NOT_ALLOWED, "MethodNotAllowed", message)
            .with_details(Details::default())
    }

    /// 415: a body in a format not taken here.
    pub(super) fn unsupported_media_type(accepted: &[&str]) -> ApiError {
        let message = format!(
            "the body of the request was in an unknown format - accepted media types include: {}",
            accepted.join(", ")
        );
        ApiError::new(StatusCode::UNSUPPORTED_MEDIA_TYPE, "UnsupportedMediaType", message)
    }

    /// 413: a body over kube-apiserver's limit.
    pub(super) fn too_large(limit: usize) -> ApiError {
        let message = format!("limit is {limit}");
        ApiError::new(StatusCode::PAYLOAD_TOO_LARGE, "RequestEntityTooLarge", message)
    }

    /// 410: the resource version asked for is older than the history kept.
    pub(super) fn expired(message: String) -> ApiError {
        ApiError::new(StatusCode::GONE, "Expired", message)
    }

    /// 500: the server failed (such as etcd not answering).
    pub(super) fn internal(why: String) -> ApiError {
        let message = format!("Internal error occurred: {why}");
        let cause = Cause { reason: "", message: why, field: String::new() };
        let details = Details { causes: vec![cause], ..Default::default() };
        ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "InternalError", message)
            .with_details(details)
    }

    /// 500 without a reason: an error kube-apiserver passes on as it is.
    pub(super) fn unconverted(message: &str) -> ApiError {
        ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "", message.to_string())
    }
}

impl fmt::Display for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.message, self.code)
    }
}

impl From<GatewayError> for ApiError {
    fn from(err: GatewayError) -> ApiError {
        ApiError::internal(err.to_string())
    }
}
