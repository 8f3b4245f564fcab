//! The objects the emulated API server's tests send, and what they check in its answers.

use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use baton_testkit::servers::KubeApiServer;
use hyper::Method;
use serde_json::{Value, json};

use super::http::{Client, JSON, Reply};

const LEASES: &str = "/apis/coordination.k8s.io/v1/namespaces";

/// The leases collection of `namespace`.
pub fn leases(namespace: &str) -> String {
    format!("{LEASES}/{namespace}/leases")
}

pub fn lease(name: &str, holder: &str) -> Value {
    json!({"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": {"name": name},
           "spec": {"holderIdentity": holder, "leaseDurationSeconds": 15}})
}

pub fn event(namespace: &str, name: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Event", "metadata": {"name": name},
           "involvedObject": {"kind": "Lease", "namespace": namespace, "name": "lease-one",
                              "apiVersion": "coordination.k8s.io/v1"},
           "reason": "LeaderElection", "message": "alice became leader", "type": "Normal",
           "source": {"component": "baton"}, "count": 1,
           "firstTimestamp": "2024-05-01T10:00:00Z", "lastTimestamp": "2024-05-01T10:00:00Z"})
}

/// `object` with the resourceVersion of `of`.
pub fn versioned(mut object: Value, of: &Value) -> Value {
    object["metadata"]["resourceVersion"] = of["metadata"]["resourceVersion"].clone();
    object
}

pub fn version(object: &Value) -> String {
    object["metadata"]["resourceVersion"].as_str().expect("a resourceVersion").to_string()
}

pub fn version_number(object: &Value) -> i64 {
    version(object).parse().expect("a decimal resourceVersion")
}

pub fn assert_status(reply: &Reply, code: u16, reason: &str, message: &str) {
    assert_eq!(reply.status, code, "{}", reply.body);
    let status = &reply.body;
    assert_eq!(
        (status["kind"].as_str(), status["apiVersion"].as_str()),
        (Some("Status"), Some("v1"))
    );
    assert_eq!(
        (status["status"].as_str(), status["code"].as_u64()),
        (Some("Failure"), Some(code.into()))
    );
    assert_eq!(status["reason"], reason);
    assert_eq!(status["message"], message);
}

/// The `mod_revision` etcd reports for `key`.
pub async fn etcd_mod_revision(server: &KubeApiServer, key: &str) -> i64 {
    let etcd = Client { port: server.etcd().port(), token: None };
    let answer = etcd
        .send(Method::POST, "/v3/kv/range", Some((JSON, json!({"key": BASE64.encode(key)}))))
        .await;
    let revision = answer.body["kvs"][0]["mod_revision"].as_str().expect("the key in etcd");
    revision.parse().expect("a decimal revision")
}
