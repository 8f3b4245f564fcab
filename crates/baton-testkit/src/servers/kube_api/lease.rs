//! `coordination.k8s.io/v1` Lease: its fields and validation. The spec fields of the
//! CoordinatedLeaderElection feature (`strategy`, `preferredHolder`), off by default in
//! Kubernetes 1.32, are dropped on write as kube-apiserver drops disabled fields.

use serde::{Deserialize, Serialize};

use super::object::{Object, nullable};
use super::resources::{ALL_VERBS, Kind, ResourceType};
use super::time::MicroTime;
use super::validation::FieldError;

/// The leases resource.
static LEASES: ResourceType = ResourceType {
    group: "coordination.k8s.io",
    version: "v1",
    kind: "Lease",
    list_kind: "LeaseList",
    plural: "leases",
    singular: "lease",
    namespaced: true,
    short_names: &[],
    verbs: ALL_VERBS,
};

/// A Lease's own fields.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub(super) struct Lease {
    /// Always written, as Go writes a struct field even when empty.
    #[serde(default, deserialize_with = "nullable")]
    spec: LeaseSpec,
}

#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(rename_all = "camelCase")]
struct LeaseSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    holder_identity: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    lease_duration_seconds: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    acquire_time: Option<MicroTime>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    renew_time: Option<MicroTime>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    lease_transitions: Option<i32>,
}

impl Kind for Lease {
    const RESOURCE: &'static ResourceType = &LEASES;

    fn validate(object: &Object<Lease>) -> Vec<FieldError> {
        let spec = &object.fields.spec;
        let mut errors = Vec::new();
        if let Some(seconds) = spec.lease_duration_seconds.filter(|seconds| *seconds <= 0) {
            let field = "spec.leaseDurationSeconds";
            errors.push(FieldError::invalid(field, seconds.to_string(), "must be greater than 0"));
        }
        if let Some(transitions) = spec.lease_transitions.filter(|transitions| *transitions < 0) {
            let field = "spec.leaseTransitions";
            let detail = "must be greater than or equal to 0";
            errors.push(FieldError::invalid(field, transitions.to_string(), detail));
        }
        errors
    }

    fn field(&self, _path: &str) -> Option<String> {
        None
    }
}
