//! Leader changes as Kubernetes Events on the Lease (`kubectl get events`), worded as
//! client-go's elector words them ("… became leader", "… stopped leading"), with the token.
//!
//! An Event is a courtesy to operators, not part of the protocol: it is posted in the
//! background and a failure (RBAC without `events: create`, say) is logged once, never
//! returned. The leader-change history that `baton history` reads is kept on the Lease itself.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use baton_core::HolderId;
use k8s_openapi::api::core::v1::{Event, EventSource, ObjectReference};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, Time};
use k8s_openapi::jiff::Timestamp;

use crate::client::Kube;
use crate::record::Record;
use crate::store::Inner;

/// The component named as the Events' source.
const COMPONENT: &str = "baton";

/// Whether a failed Event was already reported.
#[derive(Default)]
pub(crate) struct Reported(Arc<AtomicBool>);

/// Posts, in the background, the Event for `holder` starting (`became`) or ending its term on
/// the lease `record` describes as just written.
pub(crate) fn leader_change(inner: &Inner, record: &Record, holder: &HolderId, became: bool) {
    let token =
        record.token.map_or_else(String::new, |token| format!(" under fencing token {token}"));
    let message = match became {
        true => format!("{holder} became leader{token}"),
        false => format!("{holder} stopped leading{token}"),
    };
    let event = event(&inner.kube, record, holder, message);
    let (kube, reported) = (inner.kube.clone(), inner.events_reported.0.clone());
    tokio::spawn(async move {
        if let Err(failure) = kube.post_event(&event).await {
            let err = failure.into_error("recording a leader change as an Event");
            match reported.swap(true, Ordering::Relaxed) {
                false => {
                    tracing::warn!(%err, "leader changes are not recorded as Kubernetes Events")
                }
                true => tracing::debug!(%err, "a leader change was not recorded as an Event"),
            }
        }
    });
}

fn event(kube: &Kube, record: &Record, holder: &HolderId, message: String) -> Event {
    let now = Timestamp::now();
    let lease = &record.object.metadata;
    let name = lease.name.clone().unwrap_or_default();
    Event {
        metadata: ObjectMeta {
            name: Some(format!("{name}.{:x}", now.as_nanosecond())),
            namespace: Some(kube.namespace.clone()),
            ..ObjectMeta::default()
        },
        involved_object: ObjectReference {
            api_version: Some("coordination.k8s.io/v1".to_string()),
            kind: Some("Lease".to_string()),
            name: Some(name),
            namespace: Some(kube.namespace.clone()),
            uid: lease.uid.clone(),
            resource_version: lease.resource_version.clone(),
            ..ObjectReference::default()
        },
        reason: Some("LeaderElection".to_string()),
        message: Some(message),
        type_: Some("Normal".to_string()),
        source: Some(EventSource { component: Some(COMPONENT.to_string()), host: None }),
        first_timestamp: Some(Time(now)),
        last_timestamp: Some(Time(now)),
        count: Some(1),
        reporting_component: Some(COMPONENT.to_string()),
        reporting_instance: Some(holder.to_string()),
        ..Event::default()
    }
}
