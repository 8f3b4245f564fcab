//! GET and LIST.

use hyper::{Response, StatusCode};

use super::object::ObjectList;
use super::query::Query;
use super::resources::Kind;
use super::response::{self, HttpBody};
use super::selectors::Selectors;
use super::status::ApiError;
use super::storage::Store;
use super::validation::{FieldError, quoted};

/// Answers the object `name`, or 404.
pub(super) async fn get<K: Kind>(
    store: &Store,
    namespace: Option<&str>,
    name: &str,
) -> Result<Response<HttpBody>, ApiError> {
    let current = store.get::<K>(namespace, name).await?;
    let current = current.ok_or_else(|| ApiError::not_found(K::RESOURCE, name))?;
    Ok(response::json(StatusCode::OK, &current.object))
}

/// Answers the objects in `namespace` (or all) that the selectors pick, as a list whose
/// resourceVersion is etcd's revision when read. A namespace that does not exist lists empty.
/// `resourceVersionMatch=Exact` reads at the revision asked for; otherwise the list is the
/// current one, which is never older than a resourceVersion asked for. `limit` is not
/// honoured: the whole list comes in one answer, without a continue token.
pub(super) async fn list<K: Kind>(
    store: &Store,
    namespace: Option<&str>,
    query: &Query,
) -> Result<Response<HttpBody>, ApiError> {
    let selectors = Selectors::parse::<K>(query)?;
    let version = query.resource_version()?;
    let at = match (query.get("resourceVersionMatch").unwrap_or_default(), version) {
        ("", _) => None,
        (_, None) => {
            let detail = "resourceVersionMatch is forbidden unless resourceVersion is provided";
            let error = FieldError::forbidden("resourceVersionMatch", detail);
            return Err(ApiError::invalid_options("ListOptions", &[error]));
        }
        ("NotOlderThan", Some(_)) => None,
        ("Exact", Some(0)) => {
            let detail = "resourceVersionMatch \"exact\" is forbidden for resourceVersion \"0\"";
            let error = FieldError::forbidden("resourceVersionMatch", detail);
            return Err(ApiError::invalid_options("ListOptions", &[error]));
        }
        ("Exact", Some(version)) => Some(version),
        (other, Some(_)) => {
            let error = FieldError::not_supported(
                "resourceVersionMatch",
                quoted(other),
                &["Exact", "NotOlderThan", ""],
            );
            return Err(ApiError::invalid_options("ListOptions", &[error]));
        }
    };
    let (objects, revision) = store.list::<K>(namespace, at).await?;
    let selected = objects.into_iter().filter(|object| selectors.matches(object)).collect();
    Ok(response::json(StatusCode::OK, &ObjectList::new(selected, revision)))
}
