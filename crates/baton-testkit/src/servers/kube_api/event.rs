//! core/v1 Event: its fields, the validation kube-apiserver applies to events written through
//! the core API (without `eventTime`), and its field selectors.

use serde::{Deserialize, Serialize};

use super::object::{Object, is_zero, nullable};
use super::resources::{ALL_VERBS, Kind, ResourceType};
use super::time::{MicroTime, Time};
use super::validation::{FieldError, quoted};

/// The events resource.
static EVENTS: ResourceType = ResourceType {
    group: "",
    version: "v1",
    kind: "Event",
    list_kind: "EventList",
    plural: "events",
    singular: "event",
    namespaced: true,
    short_names: &["ev"],
    verbs: ALL_VERBS,
};

/// An Event's own fields, written as Go writes them: struct and time fields always (`null` when
/// unset), the reporting fields always, the others when set.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(rename_all = "camelCase")]
pub(super) struct Event {
    #[serde(default, deserialize_with = "nullable")]
    involved_object: ObjectReference,
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "String::is_empty")]
    reason: String,
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "String::is_empty")]
    message: String,
    #[serde(default, deserialize_with = "nullable")]
    source: EventSource,
    #[serde(default)]
    first_timestamp: Option<Time>,
    #[serde(default)]
    last_timestamp: Option<Time>,
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "is_zero")]
    count: i32,
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "String::is_empty")]
    r#type: String,
    #[serde(default)]
    event_time: Option<MicroTime>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    series: Option<EventSeries>,
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "String::is_empty")]
    action: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    related: Option<ObjectReference>,
    #[serde(default, deserialize_with = "nullable")]
    reporting_component: String,
    #[serde(default, deserialize_with = "nullable")]
    reporting_instance: String,
}

/// `core/v1` ObjectReference.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(rename_all = "camelCase")]
struct ObjectReference {
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "String::is_empty")]
    kind: String,
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "String::is_empty")]
    namespace: String,
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "String::is_empty")]
    name: String,
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "String::is_empty")]
    uid: String,
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "String::is_empty")]
    api_version: String,
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "String::is_empty")]
    resource_version: String,
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "String::is_empty")]
    field_path: String,
}

#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
struct EventSource {
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "String::is_empty")]
    component: String,
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "String::is_empty")]
    host: String,
}

#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(rename_all = "camelCase")]
struct EventSeries {
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "is_zero")]
    count: i32,
    #[serde(default)]
    last_observed_time: Option<MicroTime>,
}

impl Kind for Event {
    const RESOURCE: &'static ResourceType = &EVENTS;

    fn validate(object: &Object<Event>) -> Vec<FieldError> {
        let involved = &object.fields.involved_object.namespace;
        let namespace = &object.metadata.namespace;
        // An event written without eventTime (the core API's kind) must name its object's
        // namespace, or none when it lives in "default".
        let mismatch = match involved.as_str() {
            "" => !namespace.is_empty() && namespace != "default",
            involved => involved != namespace,
        };
        match object.fields.event_time.is_none() && mismatch {
            true => vec![FieldError::invalid(
                "involvedObject.namespace",
                quoted(involved),
                "does not match event.namespace",
            )],
            false => Vec::new(),
        }
    }

    fn field(&self, path: &str) -> Option<String> {
        let involved = &self.involved_object;
        let value = match path {
            "involvedObject.kind" => &involved.kind,
            "involvedObject.namespace" => &involved.namespace,
            "involvedObject.name" => &involved.name,
            "involvedObject.uid" => &involved.uid,
            "involvedObject.apiVersion" => &involved.api_version,
            "involvedObject.resourceVersion" => &involved.resource_version,
            "involvedObject.fieldPath" => &involved.field_path,
            "reason" => &self.reason,
            "reportingComponent" => &self.reporting_component,
            "source" => &self.source.component,
            "type" => &self.r#type,
            _ => return None,
        };
        Some(value.clone())
    }
}
