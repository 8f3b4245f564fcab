//! The paths served, and what a request asks of them: a discovery document, or a verb on a
//! resource's collection or object (namespaced, or across namespaces for LIST and WATCH).

use hyper::Method;

use super::discovery::Document;
use super::query::Query;
use super::resources::Resource;
use super::status::ApiError;

/// What a path names.
pub(super) enum Route {
    Discovery(Document),
    Resource(Target),
}

/// A resource path: the resource, the namespace (none for a cluster-scoped resource or a
/// request across namespaces) and the object's name (none for the collection).
pub(super) struct Target {
    pub(super) resource: Resource,
    pub(super) namespace: Option<String>,
    pub(super) name: Option<String>,
}

/// What a request does, named as the authorizer names it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Verb {
    Get,
    List,
    Watch,
    Create,
    Update,
    Patch,
    Delete,
}

impl Verb {
    /// The verb's name.
    pub(super) fn as_str(self) -> &'static str {
        match self {
            Verb::Get => "get",
            Verb::List => "list",
            Verb::Watch => "watch",
            Verb::Create => "create",
            Verb::Update => "update",
            Verb::Patch => "patch",
            Verb::Delete => "delete",
        }
    }

    /// Whether the request carries a body to read.
    pub(super) fn has_body(self) -> bool {
        matches!(self, Verb::Create | Verb::Update | Verb::Patch | Verb::Delete)
    }
}

/// What `path` names, if it is served.
pub(super) fn route(path: &str) -> Option<Route> {
    let segments: Vec<&str> = path.strip_prefix('/')?.split('/').collect();
    match segments.as_slice() {
        ["version"] => Some(Route::Discovery(Document::Version)),
        ["api"] => Some(Route::Discovery(Document::CoreVersions)),
        ["apis"] => Some(Route::Discovery(Document::Groups)),
        ["api", "v1"] => Some(Route::Discovery(Document::Resources("", "v1"))),
        ["apis", group] => Document::group(group).map(Route::Discovery),
        ["apis", group, version] => Document::resources(group, version).map(Route::Discovery),
        ["api", "v1", rest @ ..] => target("", "v1", rest).map(Route::Resource),
        ["apis", group, version, rest @ ..] => target(group, version, rest).map(Route::Resource),
        _ => None,
    }
}

/// The resource path `rest` of `group`/`version`.
fn target(group: &str, version: &str, rest: &[&str]) -> Option<Target> {
    let owned = |text: &&str| (!text.is_empty()).then(|| text.to_string());
    let (namespace, plural, name) = match rest {
        ["namespaces", namespace, plural, name @ ..] if name.len() <= 1 => {
            (Some(owned(namespace)?), *plural, name.first())
        }
        [plural, name @ ..] if name.len() <= 1 => (None, *plural, name.first()),
        _ => return None,
    };
    let resource = Resource::find(group, version, plural)?;
    let name = match name {
        Some(name) => Some(owned(name)?),
        None => None,
    };
    let namespaced = resource.describe().namespaced;
    match (namespaced, &namespace, &name) {
        // An object of a namespaced resource is always named within its namespace.
        (true, None, Some(_)) | (false, Some(_), _) => None,
        _ => Some(Target { resource, namespace, name }),
    }
}

impl Target {
    /// The verb `method` makes of this path, if the resource allows it.
    pub(super) fn verb(&self, method: &Method, query: &Query) -> Result<Verb, ApiError> {
        let resource = self.resource.describe();
        let named = self.name.is_some();
        let verb = match (method.as_str(), named) {
            ("GET", true) => Verb::Get,
            ("GET", false) if query.flag("watch")?.unwrap_or(false) => Verb::Watch,
            ("GET", false) => Verb::List,
            ("POST", false) if self.namespace.is_some() || !resource.namespaced => Verb::Create,
            ("PUT", true) => Verb::Update,
            ("PATCH", true) => Verb::Patch,
            ("DELETE", true) => Verb::Delete,
            _ => return Err(ApiError::method_not_allowed()),
        };
        match resource.allows(verb.as_str()) {
            true => Ok(verb),
            false => Err(ApiError::method_not_allowed()),
        }
    }
}
