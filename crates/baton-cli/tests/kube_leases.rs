//! Leases in Kubernetes Lease objects (on the testkit's emulated API server), state elsewhere:
//! `baton exec` and the lease commands on a `kube://` URL alone, an agent whose leader leases
//! live there while its jobs and executions live in SQLite, and the line printed when no
//! credentials can be found.

use baton_testkit::servers::KubeApiServer;

mod common;

use common::agent::Site;
use common::{split, stderr};

fn url(server: &KubeApiServer) -> String {
    format!("kube://default?kubeconfig={}", server.kubeconfig().display())
}

#[test]
fn exec_and_the_lease_commands_work_on_kubernetes_alone() {
    let server = KubeApiServer::start();
    let site = Site::new();
    split::exec_and_the_lease_commands_work_alone(&site, &url(&server), &["--ttl", "5s"]);
    split::exec_refuses_a_ttl(&site, &url(&server), "1500ms", "whole seconds");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_agent_keeps_its_leader_leases_in_kubernetes_and_its_state_in_sql() {
    let server = KubeApiServer::start();
    split::agent_keeps_its_leader_leases_apart(&Site::new(), &url(&server)).await;
}

#[test]
fn without_a_kubeconfig_or_a_service_account_the_command_says_so_in_one_line() {
    let site = Site::new();
    let home = tempfile::tempdir().unwrap();
    let out = site
        .baton(&["lease", "list", "--backend", "kube://default"])
        .env("HOME", home.path())
        .env_remove("KUBECONFIG")
        .env_remove("KUBERNETES_SERVICE_HOST")
        .env_remove("KUBERNETES_SERVICE_PORT")
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert_eq!(stderr(&out).lines().count(), 1, "one line: {}", stderr(&out));
    assert!(stderr(&out).contains("no Kubernetes credentials"), "{}", stderr(&out));
}
