//! kubectl as an independent client of the emulated API server.

use std::process::Command;

use baton_testkit::servers::KubeApiServer;
use serde_json::{Value, json};

use super::objects::event;

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
