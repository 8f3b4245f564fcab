//! Fault tests on the emulated Kubernetes API server (Lease objects in a real etcd), with
//! holders as separate processes taking their leases through it (directly or through the fault
//! proxy) and writing to a fenced ledger in a SQLite file beside it.

use std::path::Path;

use baton_testkit::faults::{self, Setup};
use baton_testkit::proxy::FaultProxy;
use baton_testkit::servers::KubeApiServer;
use tempfile::TempDir;

fn setup(server: &KubeApiServer, dir: &TempDir) -> Setup {
    Setup {
        binary: env!("CARGO_BIN_EXE_baton-test-holder").to_string(),
        url: format!("kube://default?kubeconfig={}", server.kubeconfig().display()),
        ledger: format!("sqlite://{}", dir.path().join("ledger.db").display()),
        lease: "ledger-writer".to_string(),
    }
}

/// A kubeconfig in `dir` like the server's, but reaching it at `port` (the proxy's).
fn kubeconfig_through(server: &KubeApiServer, port: u16, dir: &Path) -> String {
    let config = std::fs::read_to_string(server.kubeconfig()).unwrap();
    let path = dir.join("through-proxy.kubeconfig");
    std::fs::write(&path, config.replace(&server.url(), &format!("http://127.0.0.1:{port}")))
        .unwrap();
    format!("kube://default?kubeconfig={}", path.display())
}

#[tokio::test(flavor = "multi_thread")]
async fn kill9_of_the_holder() {
    let (server, dir) = (KubeApiServer::start(), tempfile::tempdir().unwrap());
    let failover =
        faults::killed_holder_is_replaced_within_ttl_and_retry(&setup(&server, &dir)).await;
    eprintln!("kubernetes: a killed holder was replaced after {failover:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn sigstop_past_the_ttl_then_sigcont() {
    let (server, dir) = (KubeApiServer::start(), tempfile::tempdir().unwrap());
    faults::paused_holder_notices_its_loss_and_is_fenced(&setup(&server, &dir)).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn blackhole_between_the_holder_and_the_api_server() {
    let (server, dir) = (KubeApiServer::start(), tempfile::tempdir().unwrap());
    let proxy = FaultProxy::start(([127, 0, 0, 1], server.port()).into()).await.unwrap();
    let proxied = kubeconfig_through(&server, proxy.addr().port(), dir.path());
    faults::cut_holder_steps_down_and_is_fenced(&setup(&server, &dir), &proxy, &proxied).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn api_server_restart() {
    let (server, dir) = (KubeApiServer::start(), tempfile::tempdir().unwrap());
    faults::store_restart_never_reissues_a_token(
        &setup(&server, &dir),
        || server.stop(),
        || server.restart(),
    )
    .await;
}
