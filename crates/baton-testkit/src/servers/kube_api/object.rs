//! Objects as kube-apiserver stores and serves them: `ObjectMeta` and the envelope of kind,
//! apiVersion and metadata around a kind's own fields. Fields are those of the Go types, with
//! their `omitempty` rules; fields they do not have are dropped when a body is decoded, as
//! kube-apiserver's decoder drops them.

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

use super::resources::Kind;
use super::time::Time;

/// A value that may be `null` in a body, read as its default (Go leaves the zero value).
pub(super) fn nullable<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    Ok(Option::<T>::deserialize(deserializer)?.unwrap_or_default())
}

/// `metav1.ObjectMeta`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(rename_all = "camelCase")]
pub(super) struct ObjectMeta {
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "String::is_empty")]
    pub(super) name: String,
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "String::is_empty")]
    pub(super) generate_name: String,
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "String::is_empty")]
    pub(super) namespace: String,
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "String::is_empty")]
    pub(super) uid: String,
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "String::is_empty")]
    pub(super) resource_version: String,
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "is_zero")]
    pub(super) generation: i64,
    /// Written as `null` when unset, as Go writes a zero `metav1.Time`.
    #[serde(default)]
    pub(super) creation_timestamp: Option<Time>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) deletion_timestamp: Option<Time>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) deletion_grace_period_seconds: Option<i64>,
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "BTreeMap::is_empty")]
    pub(super) labels: BTreeMap<String, String>,
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "BTreeMap::is_empty")]
    pub(super) annotations: BTreeMap<String, String>,
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "Vec::is_empty")]
    pub(super) owner_references: Vec<Value>,
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "Vec::is_empty")]
    pub(super) finalizers: Vec<String>,
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "Vec::is_empty")]
    pub(super) managed_fields: Vec<Value>,
}

/// Whether `value` is its type's zero (Go's `omitempty` for numbers).
pub(super) fn is_zero<T: Default + PartialEq>(value: &T) -> bool {
    *value == T::default()
}

/// An object of kind `K`: the type and object metadata around the kind's own fields.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(rename_all = "camelCase")]
pub(super) struct Object<K> {
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "String::is_empty")]
    pub(super) kind: String,
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "String::is_empty")]
    pub(super) api_version: String,
    #[serde(default, deserialize_with = "nullable")]
    pub(super) metadata: ObjectMeta,
    #[serde(flatten)]
    pub(super) fields: K,
}

impl<K: Kind> Object<K> {
    /// The object as JSON.
    pub(super) fn to_value(&self) -> Value {
        serde_json::to_value(self).expect("an object serializes")
    }

    /// The value of the field `path` for a field selector; `None` if the kind cannot be
    /// selected on it.
    pub(super) fn field(&self, path: &str) -> Option<String> {
        match path {
            "metadata.name" => Some(self.metadata.name.clone()),
            "metadata.namespace" => Some(self.metadata.namespace.clone()),
            path => self.fields.field(path),
        }
    }
}

/// A list of objects as kube-apiserver answers a LIST: its items without kind and apiVersion.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct ObjectList<K> {
    kind: &'static str,
    api_version: String,
    metadata: ListMeta,
    items: Vec<Object<K>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ListMeta {
    resource_version: String,
}

impl<K: Kind> ObjectList<K> {
    /// The list of `items` read at `revision`.
    pub(super) fn new(items: Vec<Object<K>>, revision: i64) -> ObjectList<K> {
        let resource = K::RESOURCE;
        let items = items
            .into_iter()
            .map(|item| Object { kind: String::new(), api_version: String::new(), ..item })
            .collect();
        ObjectList {
            kind: resource.list_kind,
            api_version: resource.api_version(),
            metadata: ListMeta { resource_version: revision.to_string() },
            items,
        }
    }
}
