//! The resources served: their names in the API, where their objects are kept in etcd, and what
//! each kind adds to the handling all share (its validation and its field selectors).

use serde::Serialize;
use serde::de::DeserializeOwned;

use super::event::Event;
use super::lease::Lease;
use super::namespace::Namespace;
use super::object::Object;
use super::validation::FieldError;

/// Every verb a resource may allow, in the order discovery lists them.
pub(super) const ALL_VERBS: &[&str] =
    &["create", "delete", "get", "list", "patch", "update", "watch"];

/// A resource: its group, version, names, scope and verbs.
pub(super) struct ResourceType {
    /// The API group; empty for the core group.
    pub(super) group: &'static str,
    pub(super) version: &'static str,
    pub(super) kind: &'static str,
    pub(super) list_kind: &'static str,
    pub(super) plural: &'static str,
    pub(super) singular: &'static str,
    pub(super) namespaced: bool,
    pub(super) short_names: &'static [&'static str],
    pub(super) verbs: &'static [&'static str],
}

impl ResourceType {
    /// `group/version`, or `version` for the core group.
    pub(super) fn api_version(&self) -> String {
        match self.group {
            "" => self.version.to_string(),
            group => format!("{group}/{}", self.version),
        }
    }

    /// The resource as errors name it: `leases.coordination.k8s.io`, `events`.
    pub(super) fn qualified_resource(&self) -> String {
        qualify(self.plural, self.group)
    }

    /// The kind as validation errors name it: `Lease.coordination.k8s.io`, `Event`.
    pub(super) fn qualified_kind(&self) -> String {
        qualify(self.kind, self.group)
    }

    /// Whether the resource allows `verb`.
    pub(super) fn allows(&self, verb: &str) -> bool {
        self.verbs.contains(&verb)
    }

    /// The etcd key of the object `name` (in `namespace` for a namespaced resource).
    pub(super) fn key(&self, namespace: Option<&str>, name: &str) -> String {
        format!("{}{name}", self.prefix(namespace))
    }

    /// The etcd prefix of the objects in `namespace`, or of all of them.
    pub(super) fn prefix(&self, namespace: Option<&str>) -> String {
        match namespace {
            Some(namespace) => format!("/registry/{}/{namespace}/", self.plural),
            None => format!("/registry/{}/", self.plural),
        }
    }
}

fn qualify(name: &str, group: &str) -> String {
    match group {
        "" => name.to_string(),
        group => format!("{name}.{group}"),
    }
}

/// A kind of object: its own fields (serialized inside [`Object`]), its resource, its
/// validation and its field selectors.
pub(super) trait Kind:
    Serialize + DeserializeOwned + Clone + Default + PartialEq + Send + Sync + 'static
{
    /// The resource serving this kind.
    const RESOURCE: &'static ResourceType;

    /// What is invalid in the kind's own fields (metadata is checked for every kind).
    fn validate(object: &Object<Self>) -> Vec<FieldError>;

    /// The value of a field the kind can be selected on beyond `metadata.name` and
    /// `metadata.namespace`; `None` for any other field.
    fn field(&self, path: &str) -> Option<String>;
}

/// The resources served.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Resource {
    Leases,
    Events,
    Namespaces,
}

impl Resource {
    /// Every resource, in discovery order within each group.
    pub(super) const ALL: [Resource; 3] =
        [Resource::Events, Resource::Namespaces, Resource::Leases];

    /// The resource's description.
    pub(super) fn describe(self) -> &'static ResourceType {
        match self {
            Resource::Leases => Lease::RESOURCE,
            Resource::Events => Event::RESOURCE,
            Resource::Namespaces => Namespace::RESOURCE,
        }
    }

    /// The resource `plural` of `group`/`version`, if served.
    pub(super) fn find(group: &str, version: &str, plural: &str) -> Option<Resource> {
        Resource::ALL.into_iter().find(|resource| {
            let described = resource.describe();
            described.group == group && described.version == version && described.plural == plural
        })
    }
}
