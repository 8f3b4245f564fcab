//! The testkit's emulated Kubernetes API server (Lease objects and Events over a throwaway
//! etcd), run by hand: for `baton bench lease` and for trying `baton exec` on `kube://`.
//!
//! Usage: `baton-kube-apiserver`. It prints the `kube://` URL of its `default` namespace (with
//! the kubeconfig to use) and serves until its standard input closes; then it stops etcd and
//! removes their files (an interrupt would leave etcd running).

use std::io::BufRead;

use baton_testkit::servers::KubeApiServer;

fn main() {
    let server = KubeApiServer::start();
    let kubeconfig = server.kubeconfig();
    println!("kube://default?kubeconfig={}", kubeconfig.display());
    println!("kubectl: kubectl --kubeconfig {}", server.tls_kubeconfig().display());
    eprintln!("serving on {}; close standard input (Ctrl-D) to stop", server.url());
    for line in std::io::stdin().lock().lines() {
        if line.is_err() {
            break;
        }
    }
}
