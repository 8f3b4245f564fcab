//! Watches of the emulated API server: events in order, 410 for a compacted version, the
//! current objects first, and their end when the server stops.

use baton_testkit::servers::KubeApiServer;
use serde_json::{Value, json};
use tokio::net::TcpStream;

use super::http::Client;
use super::objects::{assert_status, lease, leases, version, version_number, versioned};

#[tokio::test]
async fn a_watch_from_a_version_sees_modified_then_deleted_in_order() {
    let server = KubeApiServer::start();
    let api = Client::of(&server);
    let path = format!("{}/watched", leases("default"));
    let created = api.post(&leases("default"), lease("watched", "alice")).await.body;
    api.post(&leases("default"), lease("bystander", "zoe")).await;

    let query = format!(
        "?watch=1&resourceVersion={}&fieldSelector=metadata.name%3Dwatched",
        version(&created)
    );
    let mut watch = api.watch(&format!("{}{query}", leases("default"))).await;
    let renewed = api.put(&path, versioned(lease("watched", "alice-renewed"), &created)).await.body;
    api.put(&format!("{}/bystander", leases("default")), lease("bystander", "zed")).await;
    assert_eq!(api.delete(&path, json!({})).await.status, 200);

    let modified = watch.next().await.expect("MODIFIED");
    assert_eq!(modified["type"], "MODIFIED");
    assert_eq!(modified["object"], renewed);
    let deleted = watch.next().await.expect("DELETED");
    assert_eq!(deleted["type"], "DELETED");
    assert_eq!(deleted["object"]["spec"], renewed["spec"], "the last state");
    let now = api.get(&leases("default")).await.body;
    assert_eq!(
        version(&deleted["object"]),
        version(&now),
        "the deletion's revision, the last write"
    );
}

#[tokio::test]
async fn a_watch_from_a_compacted_version_gets_one_410_error_and_ends() {
    let server = KubeApiServer::start();
    let api = Client::of(&server);
    let created = api.post(&leases("default"), lease("old", "alice")).await.body;
    let path = format!("{}/old", leases("default"));
    api.put(&path, lease("old", "bob")).await;
    let latest = api.put(&path, lease("old", "carol")).await.body;
    let exact = format!(
        "{}?resourceVersion={}&resourceVersionMatch=Exact",
        leases("default"),
        version(&created)
    );
    let then = api.get(&exact).await.body;
    assert_eq!(then["items"][0]["spec"]["holderIdentity"], "alice", "the list as it was");
    assert_eq!(then["metadata"]["resourceVersion"], created["metadata"]["resourceVersion"]);
    server.compact();
    server.compact();
    let gone = api.get(&exact).await;
    assert_status(&gone, 410, "Expired", "The resourceVersion for the provided list is too old.");

    let from = version(&created);
    let mut watch =
        api.watch(&format!("{}?watch=true&resourceVersion={from}", leases("default"))).await;
    assert_eq!(watch.status, 200);
    let error = watch.next().await.expect("an ERROR event");
    assert_eq!(error["type"], "ERROR");
    let status = &error["object"];
    assert_eq!((status["kind"].as_str(), status["code"].as_i64()), (Some("Status"), Some(410)));
    assert_eq!(status["reason"], "Expired");
    let compacted = version_number(&latest);
    assert_eq!(status["message"], format!("too old resource version: {from} ({compacted})"));
    assert_eq!(watch.next().await, None, "the stream ends");

    let current =
        api.watch(&format!("{}?watch=true&resourceVersion={compacted}", leases("default"))).await;
    assert_eq!(current.status, 200, "a watch from the compaction revision is fine");
}

#[tokio::test]
async fn a_stop_keeps_the_objects_and_ends_watches_until_the_restart() {
    let server = KubeApiServer::start();
    let api = Client::of(&server);
    let created = api.post(&leases("default"), lease("durable", "alice")).await.body;
    let mut watch = api
        .watch(&format!("{}?watch=true&resourceVersion={}", leases("default"), version(&created)))
        .await;

    server.stop();
    assert_eq!(watch.next().await, None, "the watch ends with the server");
    assert!(TcpStream::connect(("127.0.0.1", server.port())).await.is_err(), "the port is closed");
    server.restart();

    let path = format!("{}/durable", leases("default"));
    assert_eq!(api.get(&path).await.body, created, "the object, at its version");
    let mut rewatch = api
        .watch(&format!("{}?watch=true&resourceVersion={}", leases("default"), version(&created)))
        .await;
    let renewed = api.put(&path, versioned(lease("durable", "bob"), &created)).await.body;
    let event = rewatch.next().await.expect("an event after the restart");
    assert_eq!((event["type"].as_str(), &event["object"]), (Some("MODIFIED"), &renewed));
}

#[tokio::test]
async fn a_watch_without_a_version_starts_with_the_current_objects_and_times_out_cleanly() {
    let server = KubeApiServer::start();
    let api = Client::of(&server);
    let collection = leases("default");
    let mut labelled = lease("labelled", "alice");
    labelled["metadata"]["labels"] = json!({"app": "baton"});
    let labelled = api.post(&collection, labelled).await.body;
    api.post(&collection, lease("unlabelled", "bob")).await;

    let mut watch = api
        .watch(&format!("{collection}?watch=true&labelSelector=app%3Dbaton&timeoutSeconds=1"))
        .await;
    let added = watch.next().await.expect("a synthetic ADDED");
    assert_eq!((added["type"].as_str(), &added["object"]), (Some("ADDED"), &labelled));
    assert_eq!(watch.next().await, None, "the stream ends after timeoutSeconds");
    assert!(watch.ended_cleanly, "with the chunked body's end");

    let query = "?watch=true&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan";
    let mut streaming = api.watch(&format!("{collection}{query}")).await;
    let names: Vec<Value> = [streaming.next().await, streaming.next().await]
        .into_iter()
        .map(|event| event.expect("an ADDED")["object"]["metadata"]["name"].clone())
        .collect();
    assert_eq!(names, [json!("labelled"), json!("unlabelled")]);
    let bookmark = streaming.next().await.expect("a BOOKMARK");
    assert_eq!(bookmark["type"], "BOOKMARK");
    assert_eq!(bookmark["object"]["metadata"]["annotations"]["k8s.io/initial-events-end"], "true");
    let list = api.get(&collection).await.body;
    assert_eq!(
        bookmark["object"]["metadata"]["resourceVersion"],
        list["metadata"]["resourceVersion"]
    );
}
