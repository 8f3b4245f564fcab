//! A SQLite-backed server for the tests, a node whose readiness and leases the test sets, and
//! helpers that seed the stores and send requests.

#![allow(dead_code)]

use std::collections::HashSet;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::Body;
use axum::extract::connect_info::MockConnectInfo;
use axum::http::{Request, StatusCode};
use baton::core::cluster::{
    AssignedPartition, BatchCreateParams, BatchJob, JsonText, Node, PartitionCheckpointParams,
    PartitionClaimParams, PartitionCompleteParams, PartitionKey, PartitionSpec, Strategy,
};
use baton::core::schedule::JobName;
use baton::core::{Execution, ExecutionStatus, Job, JobDefinition, JobPolicy, Schedule};
use baton::{LeaseName, StoreTime};
use baton_server::{LocalNode, ServerConfig};
use baton_testkit::seed;
use serde_json::Value;
use tower::ServiceExt;

/// The address requests come from in the tests.
pub const PEER: &str = "127.0.0.1:40404";

/// A node whose readiness and held leases the test decides.
#[derive(Default)]
pub struct TestNode {
    pub ready: AtomicBool,
    pub held: Mutex<HashSet<String>>,
}

#[async_trait::async_trait]
impl LocalNode for TestNode {
    fn node_id(&self) -> String {
        "node-a".into()
    }

    fn is_ready(&self) -> bool {
        self.ready.load(Ordering::SeqCst)
    }

    async fn step_down(&self, lease: &LeaseName) -> baton::Result<bool> {
        Ok(self.held.lock().unwrap().remove(lease.as_str()))
    }
}

/// A migrated SQLite database in a temporary directory and a node.
pub struct Fixture {
    _dir: tempfile::TempDir,
    pub url: String,
    pub backend: baton::Backend,
    pub node: Arc<TestNode>,
}

impl Fixture {
    pub async fn new() -> Self {
        let dir = tempfile::tempdir().expect("temporary directory");
        let url = format!("sqlite://{}", dir.path().join("baton.db").display());
        let backend = baton::connect(&url).await.expect("open the database");
        backend.migrate().await.expect("migrate");
        let node = Arc::new(TestNode::default());
        node.ready.store(true, Ordering::SeqCst);
        Fixture { _dir: dir, url, backend, node }
    }

    /// The router with these tokens, as if served with the peer address [`PEER`].
    pub fn router(&self, config: ServerConfig) -> Router {
        let peer: SocketAddr = PEER.parse().unwrap();
        baton_server::router(self.backend.clone(), self.node.clone(), config)
            .layer(MockConnectInfo(peer))
    }

    /// The router with reads open and admin actions behind `admin`.
    pub fn admin_router(&self, admin: &str) -> Router {
        self.router(ServerConfig { admin_token: Some(admin.into()), read_token: None })
    }

    pub async fn job(&self, name: &str, schedule: Schedule) -> Job {
        let definition =
            JobDefinition { name: job_name(name), schedule, policy: JobPolicy::default() };
        self.backend.jobs().job_upsert(definition).await.expect("register the job")
    }

    /// An execution of `job` started on `node-a` and finished with `status` and `output`.
    pub async fn execution(
        &self,
        job: &str,
        key: &str,
        status: ExecutionStatus,
        output: Option<&str>,
    ) -> Execution {
        seed::execution(&self.backend, job, key, status, output).await
    }

    pub async fn node_registered(&self, id: &str) -> Node {
        seed::node(&self.backend, id).await
    }

    pub async fn lease_held(&self, lease: &str, holder: &str) {
        seed::leader(&self.backend, lease, holder).await
    }

    /// A free-for-all batch of `job` with partitions `p0` (completed after 1000 units) and
    /// `p1` (claimed by `node`, checkpointed at 400 units) and `p2` (pending).
    pub async fn batch(&self, job: &str, node: &Node) -> BatchJob {
        let store = self.backend.cluster();
        let partitions = ["p0", "p1", "p2"]
            .into_iter()
            .map(|key| AssignedPartition {
                spec: PartitionSpec::new(PartitionKey::new(key).unwrap(), json("{}")),
                node: None,
            })
            .collect();
        let params = BatchCreateParams {
            name: job_name(job),
            strategy: Strategy::FreeForAll,
            stealing: false,
            partitions,
        };
        let batch = store.batch_create(params).await.expect("create the batch");
        let claim = PartitionClaimParams {
            node: node.id.clone(),
            token: node.token,
            limit: 2,
            jobs: Vec::new(),
        };
        let claimed = store.partition_claim(claim).await.expect("claim");
        let (first, second) = (&claimed[0], &claimed[1]);
        for (partition, progress) in [(first, 1000), (second, 400)] {
            let token = partition.token.unwrap();
            let checkpoint = PartitionCheckpointParams {
                id: partition.id,
                token,
                checkpoint: json("{\"at\":1}"),
                progress,
            };
            store.partition_checkpoint(checkpoint).await.expect("checkpoint");
        }
        let done =
            PartitionCompleteParams { id: first.id, token: first.token.unwrap(), result: None };
        store.partition_complete(done).await.expect("complete");
        batch
    }
}

pub fn job_name(name: &str) -> JobName {
    JobName::new(name).unwrap()
}

pub fn json(text: &str) -> JsonText {
    JsonText::new(text).unwrap()
}

/// An instant far in the future, for schedules whose next fire the test knows.
pub fn far_future() -> StoreTime {
    StoreTime::parse("2099-01-01T00:00:00Z").unwrap()
}

/// A response: its status and its body as JSON (or `Value::String` when not JSON).
pub struct Answer {
    pub status: StatusCode,
    pub body: Value,
    pub text: String,
}

impl Answer {
    /// The error code of a JSON error body.
    pub fn code(&self) -> &str {
        self.body["error"]["code"].as_str().unwrap_or_default()
    }

    pub fn message(&self) -> &str {
        self.body["error"]["message"].as_str().unwrap_or_default()
    }
}

pub async fn send(router: &Router, request: Request<Body>) -> Answer {
    let response = router.clone().oneshot(request).await.expect("the router answers");
    let status = response.status();
    let bytes = axum::body::to_bytes(response.into_body(), usize::MAX).await.unwrap();
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let body = serde_json::from_str(&text).unwrap_or(Value::String(text.clone()));
    Answer { status, body, text }
}

pub async fn get(router: &Router, uri: &str) -> Answer {
    send(router, Request::get(uri).body(Body::empty()).unwrap()).await
}

pub async fn get_with(router: &Router, uri: &str, token: &str) -> Answer {
    let request = Request::get(uri).header("authorization", format!("Bearer {token}"));
    send(router, request.body(Body::empty()).unwrap()).await
}

/// POSTs with an optional bearer token and actor.
pub async fn post(router: &Router, uri: &str, token: Option<&str>, actor: Option<&str>) -> Answer {
    let mut request = Request::post(uri);
    if let Some(token) = token {
        request = request.header("authorization", format!("Bearer {token}"));
    }
    if let Some(actor) = actor {
        request = request.header("x-baton-actor", actor);
    }
    send(router, request.body(Body::empty()).unwrap()).await
}
