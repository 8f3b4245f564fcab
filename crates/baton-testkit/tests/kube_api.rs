//! The emulated Kubernetes API server against a real etcd: the answers kube-apiserver gives
//! (codes, `Status` bodies, resourceVersions from etcd's revisions), its watches, and kubectl as
//! an independent client.

use baton_testkit::servers::KubeApiServer;
use hyper::Method;
use serde_json::{Value, json};

#[path = "kube_api/http.rs"]
mod http;
#[path = "kube_api/kubectl.rs"]
mod kubectl;
#[path = "kube_api/objects.rs"]
mod objects;
#[path = "kube_api/watches.rs"]
mod watches;

use http::{Client, Patch, Reply};
use objects::{
    assert_status, etcd_mod_revision, event, lease, leases, version, version_number, versioned,
};

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
