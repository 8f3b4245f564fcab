//! The emulated Kubernetes API server against a real etcd: the answers kube-apiserver gives
//! (codes, `Status` bodies, resourceVersions from etcd's revisions), its watches, and kubectl as
//! an independent client.

use std::process::Command;

use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use baton_testkit::servers::KubeApiServer;
use hyper::Method;
use serde_json::{Value, json};
use tokio::net::TcpStream;

#[path = "kube_api/http.rs"]
mod http;

use http::{Client, JSON, Patch, Reply};

const LEASES: &str = "/apis/coordination.k8s.io/v1/namespaces";

#[tokio::test]
async fn a_create_answers_201_with_etcds_revision_and_a_second_one_409() {
    let server = KubeApiServer::start();
    let api = Client::of(&server);

    let created = api.post(&leases("default"), lease("one", "alice")).await;
    assert_eq!(created.status, 201, "{}", created.body);
    let object = &created.body;
    assert_eq!(object["kind"], "Lease");
    assert_eq!(object["apiVersion"], "coordination.k8s.io/v1");
    assert_eq!(object["metadata"]["namespace"], "default");
    assert_eq!(object["spec"]["holderIdentity"], "alice");
    assert!(object["metadata"]["creationTimestamp"].is_string());
    let uid = object["metadata"]["uid"].as_str().expect("a uid");
    assert_eq!(uid.split('-').map(str::len).collect::<Vec<_>>(), [8, 4, 4, 4, 12], "{uid}");
    let etcd_revision = etcd_mod_revision(&server, "/registry/leases/default/one").await;
    assert_eq!(version(object), etcd_revision.to_string());

    let again = api.post(&leases("default"), lease("one", "bob")).await;
    assert_status(
        &again,
        409,
        "AlreadyExists",
        "leases.coordination.k8s.io \"one\" already exists",
    );
    assert_eq!(
        again.body["details"],
        json!({"name": "one", "group": "coordination.k8s.io", "kind": "leases"})
    );

    let read = api.get(&format!("{}/one", leases("default"))).await;
    assert_eq!(read.status, 200);
    assert_eq!(read.body, created.body, "the object as created");
    assert_eq!(server.lease("default", "one").as_ref(), Some(&created.body));
    let missing = api.get(&format!("{}/none", leases("default"))).await;
    assert_status(&missing, 404, "NotFound", "leases.coordination.k8s.io \"none\" not found");
}

#[tokio::test]
async fn a_put_from_a_stale_version_conflicts_and_changes_nothing() {
    let server = KubeApiServer::start();
    let api = Client::of(&server);
    let path = format!("{}/held", leases("default"));
    let first = api.post(&leases("default"), lease("held", "alice")).await;

    let renewed = api.put(&path, versioned(lease("held", "alice-renewed"), &first.body)).await;
    assert_eq!(renewed.status, 200, "{}", renewed.body);
    assert!(version_number(&renewed.body) > version_number(&first.body));
    let stale = api.put(&path, versioned(lease("held", "bob"), &first.body)).await;
    assert_status(
        &stale,
        409,
        "Conflict",
        "Operation cannot be fulfilled on leases.coordination.k8s.io \"held\": the object has been \
         modified; please apply your changes to the latest version and try again",
    );
    assert_eq!(api.get(&path).await.body, renewed.body, "the conflicting PUT changed nothing");

    let same = api.put(&path, versioned(lease("held", "alice-renewed"), &renewed.body)).await;
    assert_eq!(same.body, renewed.body, "a no-op update writes nothing: same resourceVersion");

    let unconditional = api.put(&path, lease("held", "carol")).await;
    assert_eq!(unconditional.status, 200);
    assert_eq!(unconditional.body["metadata"]["uid"], first.body["metadata"]["uid"]);
    assert_eq!(
        unconditional.body["metadata"]["creationTimestamp"],
        first.body["metadata"]["creationTimestamp"]
    );

    let missing = format!("{}/fresh", leases("default"));
    let conditional = api.put(&missing, versioned(lease("fresh", "dave"), &first.body)).await;
    assert_status(&conditional, 404, "NotFound", "leases.coordination.k8s.io \"fresh\" not found");
    let created = api.put(&missing, lease("fresh", "dave")).await;
    assert_eq!(created.status, 201, "leases allow create-on-update: {}", created.body);
    let renamed = api.put(&path, lease("other", "erin")).await;
    assert_status(
        &renamed,
        400,
        "BadRequest",
        "the name of the object (other) does not match the name on the URL (held)",
    );
}

#[tokio::test]
async fn of_concurrent_puts_from_one_version_exactly_one_wins() {
    let server = KubeApiServer::start();
    let api = Client::of(&server);
    let path = format!("{}/contended", leases("default"));
    let created = api.post(&leases("default"), lease("contended", "nobody")).await;

    let contenders: Vec<_> = (0..8)
        .map(|i| {
            let (api, path) = (api.clone(), path.clone());
            let body = versioned(lease("contended", &format!("contender-{i}")), &created.body);
            tokio::spawn(async move { api.put(&path, body).await })
        })
        .collect();
    let mut replies = Vec::new();
    for contender in contenders {
        replies.push(contender.await.expect("a contender"));
    }
    let winners: Vec<&Reply> = replies.iter().filter(|reply| reply.status == 200).collect();
    assert_eq!(winners.len(), 1, "{:?}", replies.iter().map(|r| r.status).collect::<Vec<_>>());
    assert!(replies.iter().all(|reply| reply.status == 200 || reply.body["reason"] == "Conflict"));
    let stored = api.get(&path).await.body;
    assert_eq!(stored["spec"]["holderIdentity"], winners[0].body["spec"]["holderIdentity"]);
    assert_eq!(version(&stored), version(&winners[0].body));
}

#[tokio::test]
async fn a_delete_with_a_wrong_precondition_conflicts() {
    let server = KubeApiServer::start();
    let api = Client::of(&server);
    let path = format!("{}/doomed", leases("default"));
    let created = api.post(&leases("default"), lease("doomed", "alice")).await.body;
    let uid = created["metadata"]["uid"].as_str().expect("a uid").to_string();
    let current = version(&created);

    let stale = api.delete(&path, json!({"preconditions": {"resourceVersion": "1"}})).await;
    assert_status(
        &stale,
        409,
        "Conflict",
        &format!(
            "Operation cannot be fulfilled on Lease.coordination.k8s.io \"doomed\": the \
             ResourceVersion in the precondition (1) does not match the ResourceVersion in record \
             ({current}). The object might have been modified"
        ),
    );
    let other_uid = api.delete(&path, json!({"preconditions": {"uid": "not-its-uid"}})).await;
    assert_eq!(other_uid.status, 409);
    assert!(
        other_uid.body["message"]
            .as_str()
            .unwrap()
            .contains("the UID in the precondition (not-its-uid)")
    );
    assert_eq!(api.get(&path).await.status, 200, "still there");

    let preconditions = json!({"preconditions": {"uid": uid, "resourceVersion": current}});
    let deleted = api.delete(&path, preconditions).await;
    assert_eq!(deleted.status, 200);
    assert_eq!(
        deleted.body,
        json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success",
               "details": {"name": "doomed", "group": "coordination.k8s.io", "kind": "leases", "uid": uid}})
    );
    assert_eq!(api.get(&path).await.status, 404);
    assert_eq!(api.delete(&path, json!({})).await.status, 404);
    assert!(server.etcd().keys("/registry/leases/default/").is_empty());
}

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
async fn writes_in_a_namespace_that_does_not_exist_are_404_and_write_nothing() {
    let server = KubeApiServer::start();
    let api = Client::of(&server);

    let posted = api.post(&leases("absent"), lease("orphan", "alice")).await;
    assert_status(&posted, 404, "NotFound", "namespaces \"absent\" not found");
    assert_eq!(posted.body["details"], json!({"name": "absent", "kind": "namespaces"}));
    let put = api.put(&format!("{}/orphan", leases("absent")), lease("orphan", "alice")).await;
    assert_status(&put, 404, "NotFound", "namespaces \"absent\" not found");
    assert!(server.etcd().keys("/registry/leases/").is_empty(), "nothing written");

    let listed = api.get(&leases("absent")).await;
    assert_eq!(listed.status, 200, "listing a missing namespace is not an error");
    assert_eq!(listed.body["kind"], "LeaseList");
    assert_eq!(listed.body["items"], json!([]));
    assert_eq!(api.get("/api/v1/namespaces/absent").await.status, 404);

    server.create_namespace("absent");
    let namespace = api.get("/api/v1/namespaces/absent").await.body;
    assert_eq!(
        (namespace["kind"].as_str(), namespace["apiVersion"].as_str()),
        (Some("Namespace"), Some("v1"))
    );
    assert_eq!(namespace["status"]["phase"], "Active");
    assert_eq!(api.post(&leases("absent"), lease("orphan", "alice")).await.status, 201);
}

#[tokio::test]
async fn leases_of_a_forbidden_namespace_answer_403_as_rbac_words_it() {
    let server = KubeApiServer::start();
    let api = Client::of(&server);
    server.create_namespace("locked");
    server.forbid_leases("locked");

    let read = api.get(&format!("{}/held", leases("locked"))).await;
    assert_status(
        &read,
        403,
        "Forbidden",
        "leases.coordination.k8s.io \"held\" is forbidden: User \"baton-test\" cannot get resource \
         \"leases\" in API group \"coordination.k8s.io\" in the namespace \"locked\"",
    );
    let created = api.post(&leases("locked"), lease("held", "alice")).await;
    assert_status(
        &created,
        403,
        "Forbidden",
        "leases.coordination.k8s.io is forbidden: User \"baton-test\" cannot create resource \
         \"leases\" in API group \"coordination.k8s.io\" in the namespace \"locked\"",
    );
    let watch = api.get(&format!("{}?watch=true", leases("locked"))).await;
    assert_eq!((watch.status, watch.body["reason"].as_str()), (403, Some("Forbidden")));
    assert!(server.etcd().keys("/registry/leases/").is_empty());

    assert_eq!(api.post(&leases("default"), lease("held", "alice")).await.status, 201);
    let event = api.post("/api/v1/namespaces/locked/events", event("locked", "e1")).await;
    assert_eq!(event.status, 201, "only leases are forbidden: {}", event.body);
}

#[tokio::test]
async fn requests_without_the_token_get_401() {
    let server = KubeApiServer::start();
    for token in [None, Some("not-the-token")] {
        let api = Client { port: server.port(), token: token.map(str::to_string) };
        for path in ["/version", "/apis", &leases("default")] {
            let reply = api.get(path).await;
            assert_eq!(
                reply.body,
                json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                       "message": "Unauthorized", "reason": "Unauthorized", "code": 401}),
                "{path} with {token:?}"
            );
            assert_eq!(reply.status, 401);
        }
        let posted = api.post(&leases("default"), lease("sneaky", "mallory")).await;
        assert_eq!(posted.status, 401);
    }
    assert!(server.etcd().keys("/registry/leases/").is_empty());
}

#[tokio::test]
async fn a_dry_run_checks_everything_and_writes_nothing() {
    let server = KubeApiServer::start();
    let api = Client::of(&server);
    let collection = leases("default");
    let path = format!("{collection}/dry");

    let created = api.post(&format!("{collection}?dryRun=All"), lease("dry", "alice")).await;
    assert_eq!(created.status, 201);
    assert!(created.body["metadata"]["uid"].is_string());
    assert!(created.body["metadata"].get("resourceVersion").is_none());
    assert!(server.etcd().keys("/registry/leases/").is_empty(), "nothing written");
    let elsewhere = api.post(&format!("{}?dryRun=All", leases("absent")), lease("dry", "a")).await;
    assert_eq!(elsewhere.status, 404, "the namespace is still checked");

    let stored = api.post(&collection, lease("dry", "alice")).await.body;
    let revision = etcd_mod_revision(&server, "/registry/leases/default/dry").await;
    let again = api.post(&format!("{collection}?dryRun=All"), lease("dry", "bob")).await;
    assert_eq!(again.status, 409, "conflicts are still found");
    let put = api.put(&format!("{path}?dryRun=All"), versioned(lease("dry", "bob"), &stored)).await;
    assert_eq!((put.status, put.body["spec"]["holderIdentity"].as_str()), (200, Some("bob")));
    let patch = Patch::Merge(json!({"spec": {"holderIdentity": "carol"}}));
    let patched = api.patch(&format!("{path}?dryRun=All"), patch).await;
    assert_eq!(
        (patched.status, patched.body["spec"]["holderIdentity"].as_str()),
        (200, Some("carol"))
    );
    let deleted = api.delete(&format!("{path}?dryRun=All"), json!({})).await;
    assert_eq!((deleted.status, deleted.body["status"].as_str()), (200, Some("Success")));

    assert_eq!(api.get(&path).await.body, stored, "unchanged");
    assert_eq!(etcd_mod_revision(&server, "/registry/leases/default/dry").await, revision);
    let bogus = api.post(&format!("{collection}?dryRun=Some"), lease("dry2", "a")).await;
    assert_eq!((bogus.status, bogus.body["reason"].as_str()), (422, Some("Invalid")));
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
async fn patches_apply_to_the_stored_object_with_their_version_as_precondition() {
    let server = KubeApiServer::start();
    let api = Client::of(&server);
    let path = format!("{}/patched", leases("default"));
    let created = api.post(&leases("default"), lease("patched", "alice")).await.body;

    let merged = api.patch(&path, Patch::Merge(json!({"spec": {"holderIdentity": "bob"}}))).await;
    assert_eq!(merged.status, 200, "{}", merged.body);
    assert_eq!(merged.body["spec"], json!({"holderIdentity": "bob", "leaseDurationSeconds": 15}));
    let strategic =
        Patch::Strategic(json!({"spec": {"leaseDurationSeconds": 30, "holderIdentity": null}}));
    let merged = api.patch(&path, strategic).await.body;
    assert_eq!(merged["spec"], json!({"leaseDurationSeconds": 30}));

    let stale = json!({"metadata": {"resourceVersion": version(&created)}, "spec": {"holderIdentity": "eve"}});
    assert_eq!(api.patch(&path, Patch::Merge(stale)).await.body["reason"], "Conflict");
    let operations = json!([
        {"op": "test", "path": "/spec/leaseDurationSeconds", "value": 30},
        {"op": "add", "path": "/spec/holderIdentity", "value": "carol"},
        {"op": "replace", "path": "/spec/leaseDurationSeconds", "value": 10},
    ]);
    let applied = api.patch(&path, Patch::Json(operations)).await;
    assert_eq!(
        applied.body["spec"],
        json!({"holderIdentity": "carol", "leaseDurationSeconds": 10})
    );
    let failed_test = json!([{"op": "test", "path": "/spec/holderIdentity", "value": "dave"}]);
    let refused = api.patch(&path, Patch::Json(failed_test)).await;
    assert_eq!((refused.status, refused.body["reason"].as_str()), (422, Some("Invalid")));
    assert_eq!(api.get(&path).await.body, applied.body, "a refused patch writes nothing");

    let apply =
        api.send(Method::PATCH, &path, Some(("application/apply-patch+yaml", json!({})))).await;
    assert_eq!((apply.status, apply.body["reason"].as_str()), (415, Some("UnsupportedMediaType")));
    let missing =
        api.patch(&format!("{}/absent", leases("default")), Patch::Merge(json!({}))).await;
    assert_eq!(missing.status, 404);
}

#[tokio::test]
async fn invalid_leases_are_refused_as_kube_apiserver_refuses_them() {
    let server = KubeApiServer::start();
    let api = Client::of(&server);
    let collection = leases("default");

    let bad_name = api.post(&collection, lease("Not_A_Name", "alice")).await;
    assert_eq!((bad_name.status, bad_name.body["reason"].as_str()), (422, Some("Invalid")));
    let cause = &bad_name.body["details"]["causes"][0];
    assert_eq!(
        (cause["reason"].as_str(), cause["field"].as_str()),
        (Some("FieldValueInvalid"), Some("metadata.name"))
    );
    assert!(bad_name.body["message"].as_str().unwrap().starts_with(
        "Lease.coordination.k8s.io \"Not_A_Name\" is invalid: metadata.name: Invalid value: \"Not_A_Name\": a lowercase RFC 1123 subdomain"
    ));

    let spec = json!({"leaseDurationSeconds": 0, "leaseTransitions": -1});
    let bad_spec = api.post(&collection, json!({"metadata": {"name": "spec"}, "spec": spec})).await;
    assert_eq!(
        bad_spec.body["message"],
        "Lease.coordination.k8s.io \"spec\" is invalid: [spec.leaseDurationSeconds: Invalid value: \
         0: must be greater than 0, spec.leaseTransitions: Invalid value: -1: must be greater than \
         or equal to 0]"
    );
    let seconds =
        json!({"metadata": {"name": "seconds"}, "spec": {"renewTime": "2024-05-01T10:00:00Z"}});
    let not_micro = api.post(&collection, seconds).await;
    assert_eq!((not_micro.status, not_micro.body["reason"].as_str()), (400, Some("BadRequest")));
    let huge = json!({"metadata": {"name": "huge", "annotations": {"a": "x".repeat(256 * 1024)}}});
    let too_big = api.post(&collection, huge).await;
    assert_eq!(too_big.body["details"]["causes"][0]["reason"], "FieldValueTooLong");
    assert!(server.etcd().keys("/registry/leases/").is_empty());

    let micro = json!({"metadata": {"generateName": "gen-"},
                       "spec": {"renewTime": "2024-05-01T12:00:00.123456+02:00", "unknown": true}});
    let generated = api.post(&collection, micro).await.body;
    let name = generated["metadata"]["name"].as_str().expect("a generated name");
    assert!(name.starts_with("gen-") && name.len() == 9, "{name}");
    assert_eq!(
        generated["spec"],
        json!({"renewTime": "2024-05-01T10:00:00.123456Z"}),
        "in UTC; unknown fields dropped"
    );
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

#[tokio::test]
async fn events_are_created_read_and_listed() {
    let server = KubeApiServer::start();
    let api = Client::of(&server);
    let collection = "/api/v1/namespaces/default/events";

    let created = api.post(collection, event("default", "lease-one.1")).await;
    assert_eq!(created.status, 201, "{}", created.body);
    assert_eq!(
        (created.body["kind"].as_str(), created.body["apiVersion"].as_str()),
        (Some("Event"), Some("v1"))
    );
    assert_eq!(api.get(&format!("{collection}/lease-one.1")).await.body, created.body);
    let listed = api.get(collection).await.body;
    assert_eq!(
        (listed["kind"].as_str(), listed["items"][0]["reason"].as_str()),
        (Some("EventList"), Some("LeaderElection"))
    );
    assert_eq!(server.events("default"), [created.body]);

    let elsewhere = api.post(collection, event("kube-system", "misplaced.1")).await;
    assert_eq!(elsewhere.status, 422, "its object's namespace must be the event's");
    assert!(server.events("kube-system").is_empty());
}

#[tokio::test]
async fn discovery_documents_and_unserved_requests() {
    let server = KubeApiServer::start();
    let api = Client::of(&server);
    assert_eq!(api.get("/version").await.body["gitVersion"], "v1.32.0");
    assert_eq!(api.get("/api").await.body["versions"], json!(["v1"]));
    let groups = api.get("/apis").await.body;
    assert_eq!(groups["groups"][0]["preferredVersion"]["groupVersion"], "coordination.k8s.io/v1");
    let resources = api.get("/apis/coordination.k8s.io/v1").await.body;
    assert_eq!(
        resources["resources"],
        json!([{"name": "leases", "singularName": "lease", "namespaced": true, "kind": "Lease",
                "verbs": ["create", "delete", "get", "list", "patch", "update", "watch"]}])
    );
    let core = api.get("/api/v1").await.body;
    let core_names: Vec<&Value> =
        core["resources"].as_array().unwrap().iter().map(|r| &r["name"]).collect();
    assert_eq!(core_names, [&json!("events"), &json!("namespaces")]);

    for path in [
        "/openapi/v2",
        "/openapi/v3",
        "/apis/apps/v1",
        "/apis/coordination.k8s.io/v1/namespaces/default/leases/x/status",
    ] {
        let unserved = api.get(path).await;
        assert_status(
            &unserved,
            404,
            "NotFound",
            "the server could not find the requested resource",
        );
    }
    let collection_put = api.put(&leases("default"), lease("x", "a")).await;
    assert_eq!(
        (collection_put.status, collection_put.body["reason"].as_str()),
        (405, Some("MethodNotAllowed"))
    );
    let namespace_post = api.post("/api/v1/namespaces", json!({"metadata": {"name": "new"}})).await;
    assert_eq!(namespace_post.status, 405, "namespaces are read-only here");
    let text =
        api.send(Method::POST, &leases("default"), Some(("text/plain", lease("x", "a")))).await;
    assert_eq!((text.status, text.body["reason"].as_str()), (415, Some("UnsupportedMediaType")));
}

/// kubectl as an independent client, over TLS since it sends its token only there.
#[test]
fn kubectl_creates_reads_replaces_and_lists_events() {
    let server = KubeApiServer::start();
    let dir = tempfile::tempdir().expect("a directory");
    let file = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).expect("a manifest");
        path.display().to_string()
    };
    let manifest = "apiVersion: coordination.k8s.io/v1\nkind: Lease\nmetadata:\n  name: by-kubectl\n\
                    spec:\n  holderIdentity: alice\n  leaseDurationSeconds: 15\n";
    let created = kubectl(&server, &["create", "-f", &file("lease.yaml", manifest)]);
    assert_eq!(created.trim(), "lease.coordination.k8s.io/by-kubectl created");
    let stored = server.lease("default", "by-kubectl").expect("the lease in etcd");
    assert_eq!(stored["spec"]["holderIdentity"], "alice");

    let read: Value =
        serde_json::from_str(&kubectl(&server, &["get", "lease", "by-kubectl", "-o", "json"]))
            .unwrap();
    assert_eq!(read, stored, "kubectl reads the object as stored");
    let mut renewed = read.clone();
    renewed["spec"]["holderIdentity"] = json!("bob");
    let renewal = file("renewal.json", &renewed.to_string());
    assert_eq!(
        kubectl(&server, &["replace", "-f", &renewal]).trim(),
        "lease.coordination.k8s.io/by-kubectl replaced"
    );
    let stale = kubectl_fails(&server, &["replace", "-f", &renewal]);
    assert!(
        stale.contains("Error from server (Conflict)")
            && stale.contains("the object has been modified"),
        "{stale}"
    );
    let mut current = server.lease("default", "by-kubectl").unwrap();
    current["spec"]["holderIdentity"] = json!("carol");
    let replaced =
        kubectl(&server, &["replace", "-f", &file("current.json", &current.to_string())]);
    assert_eq!(replaced.trim(), "lease.coordination.k8s.io/by-kubectl replaced");
    assert_eq!(server.lease("default", "by-kubectl").unwrap()["spec"]["holderIdentity"], "carol");

    let event = event("default", "by-kubectl.1").to_string();
    kubectl(&server, &["create", "-f", &file("event.json", &event)]);
    let events = kubectl(&server, &["get", "events"]);
    assert!(events.lines().any(|line| line.starts_with("by-kubectl.1 ")), "{events}");
    assert_eq!(server.events("default").len(), 1);
}

/// Runs kubectl with the server's TLS kubeconfig (validation off: no OpenAPI is served);
/// answers its output, panicking unless it succeeds.
fn kubectl(server: &KubeApiServer, args: &[&str]) -> String {
    let output = run_kubectl(server, args);
    let (stdout, stderr) =
        (String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    assert!(output.status.success(), "kubectl {args:?} failed: {stdout}{stderr}");
    stdout.into_owned()
}

/// Runs kubectl expecting it to fail; answers its error output.
fn kubectl_fails(server: &KubeApiServer, args: &[&str]) -> String {
    let output = run_kubectl(server, args);
    assert!(!output.status.success(), "kubectl {args:?} succeeded");
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn run_kubectl(server: &KubeApiServer, args: &[&str]) -> std::process::Output {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let found = std::env::split_paths(&path).any(|dir| dir.join("kubectl").is_file());
    assert!(found, "kubectl not found on the PATH: install kubectl (v1.32) to run this test");
    let validation = match args.first() {
        Some(&"create" | &"replace") => vec!["--validate=false"],
        _ => Vec::new(),
    };
    Command::new("kubectl")
        .arg("--kubeconfig")
        .arg(server.tls_kubeconfig())
        .args(args)
        .args(validation)
        .output()
        .expect("kubectl runs")
}

/// The leases collection of `namespace`.
fn leases(namespace: &str) -> String {
    format!("{LEASES}/{namespace}/leases")
}

fn lease(name: &str, holder: &str) -> Value {
    json!({"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": {"name": name},
           "spec": {"holderIdentity": holder, "leaseDurationSeconds": 15}})
}

fn event(namespace: &str, name: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Event", "metadata": {"name": name},
           "involvedObject": {"kind": "Lease", "namespace": namespace, "name": "lease-one",
                              "apiVersion": "coordination.k8s.io/v1"},
           "reason": "LeaderElection", "message": "alice became leader", "type": "Normal",
           "source": {"component": "baton"}, "count": 1,
           "firstTimestamp": "2024-05-01T10:00:00Z", "lastTimestamp": "2024-05-01T10:00:00Z"})
}

/// `object` with the resourceVersion of `of`.
fn versioned(mut object: Value, of: &Value) -> Value {
    object["metadata"]["resourceVersion"] = of["metadata"]["resourceVersion"].clone();
    object
}

fn version(object: &Value) -> String {
    object["metadata"]["resourceVersion"].as_str().expect("a resourceVersion").to_string()
}

fn version_number(object: &Value) -> i64 {
    version(object).parse().expect("a decimal resourceVersion")
}

fn assert_status(reply: &Reply, code: u16, reason: &str, message: &str) {
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
async fn etcd_mod_revision(server: &KubeApiServer, key: &str) -> i64 {
    let etcd = Client { port: server.etcd().port(), token: None };
    let answer = etcd
        .send(Method::POST, "/v3/kv/range", Some((JSON, json!({"key": BASE64.encode(key)}))))
        .await;
    let revision = answer.body["kvs"][0]["mod_revision"].as_str().expect("the key in etcd");
    revision.parse().expect("a decimal revision")
}
