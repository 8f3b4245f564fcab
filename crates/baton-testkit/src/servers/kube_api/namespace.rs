//! core/v1 Namespace, served read-only: the server creates namespaces itself
//! ([`KubeApiServer::create_namespace`](super::KubeApiServer::create_namespace)), active at once.

use serde::{Deserialize, Serialize};

use super::object::{Object, nullable};
use super::resources::{Kind, ResourceType};
use super::validation::{FieldError, dns1123_label, quoted};

/// The namespaces resource.
static NAMESPACES: ResourceType = ResourceType {
    group: "",
    version: "v1",
    kind: "Namespace",
    list_kind: "NamespaceList",
    plural: "namespaces",
    singular: "namespace",
    namespaced: false,
    short_names: &["ns"],
    verbs: &["get", "list", "watch"],
};

/// A Namespace's own fields.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub(super) struct Namespace {
    #[serde(default, deserialize_with = "nullable")]
    spec: NamespaceSpec,
    #[serde(default, deserialize_with = "nullable")]
    status: NamespaceStatus,
}

#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
struct NamespaceSpec {
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "Vec::is_empty")]
    finalizers: Vec<String>,
}

#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
struct NamespaceStatus {
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "String::is_empty")]
    phase: String,
}

impl Namespace {
    /// The namespace `name` as kube-apiserver creates one: labelled with its name, with the
    /// `kubernetes` finalizer, active.
    pub(super) fn active(name: &str) -> Object<Namespace> {
        let mut object = Object {
            kind: NAMESPACES.kind.to_string(),
            api_version: NAMESPACES.api_version(),
            fields: Namespace {
                spec: NamespaceSpec { finalizers: vec!["kubernetes".into()] },
                status: NamespaceStatus { phase: "Active".into() },
            },
            ..Object::default()
        };
        object.metadata.name = name.to_string();
        object.metadata.labels.insert("kubernetes.io/metadata.name".into(), name.into());
        object
    }
}

impl Kind for Namespace {
    const RESOURCE: &'static ResourceType = &NAMESPACES;

    fn validate(object: &Object<Namespace>) -> Vec<FieldError> {
        let name = &object.metadata.name;
        let problems = dns1123_label(name).into_iter();
        problems
            .map(|problem| FieldError::invalid("metadata.name", quoted(name), problem))
            .collect()
    }

    fn field(&self, path: &str) -> Option<String> {
        (path == "status.phase").then(|| self.status.phase.clone())
    }
}
