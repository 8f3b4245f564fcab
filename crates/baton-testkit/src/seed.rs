//! Records written straight into a backend through its stores, for the tests that read them
//! back: the HTTP API's and the command line's.

use std::time::Duration;

use baton::core::cluster::{Node, NodeId, NodeRegisterParams};
use baton::core::job::{CompleteParams, TriggerOutcome, TriggerParams};
use baton::core::schedule::JobName;
use baton::core::{AcquireOutcome, AcquireParams, Execution, ExecutionStatus, FireKey, Trigger};
use baton::{Backend, HolderId, LeaseName};

/// An execution of `job` (registered) under the idempotency key `key`, started on `node-a`
/// and finished with `status`, a detail naming the status, and `output`.
pub async fn execution(
    backend: &Backend,
    job: &str,
    key: &str,
    status: ExecutionStatus,
    output: Option<&str>,
) -> Execution {
    let store = backend.jobs();
    let params = TriggerParams {
        job: JobName::new(job).expect("a valid job name"),
        fire_key: Some(FireKey::idempotency(key).expect("a valid idempotency key")),
        scheduled_at: None,
        trigger: Trigger::External,
        claim_for: Some(HolderId::new("node-a").expect("a valid holder")),
    };
    let running = match store.trigger(params).await.expect("trigger") {
        TriggerOutcome::Recorded(execution) => execution,
        other => panic!("expected a new execution, got {other:?}"),
    };
    let complete = CompleteParams {
        id: running.id,
        token: running.token.expect("a started execution has a token"),
        status,
        detail: Some(format!("{status:?}")),
        output: output.map(str::to_string),
    };
    store.complete(complete).await.expect("complete").execution
}

/// Node `id`, registered (host `host-<id>`, version 1.0.0).
pub async fn node(backend: &Backend, id: &str) -> Node {
    let params = NodeRegisterParams {
        id: NodeId::new(id).expect("a valid node id"),
        host: format!("host-{id}"),
        version: "1.0.0".into(),
        load: 0,
    };
    backend.cluster().node_register(params).await.expect("register the node")
}

/// `holder` holds `lease` for a minute.
pub async fn leader(backend: &Backend, lease: &str, holder: &str) {
    let params = AcquireParams {
        name: LeaseName::new(lease).expect("a valid lease name"),
        holder: HolderId::new(holder).expect("a valid holder"),
        ttl: Duration::from_secs(60),
    };
    match backend.leases().acquire(params).await.expect("acquire") {
        AcquireOutcome::Acquired { .. } => {}
        other => panic!("expected to acquire {lease}, got {other:?}"),
    }
}
