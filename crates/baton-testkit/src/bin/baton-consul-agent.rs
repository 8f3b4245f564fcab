//! The testkit's emulated Consul agent (the slice of Consul's HTTP API the Consul lease store
//! uses), run by hand: for `baton bench lease` and for trying `baton exec` on `consul://`.
//!
//! Usage: `baton-consul-agent`. It prints the `consul://` URL and serves until its standard
//! input closes.

use std::io::BufRead;

use baton_testkit::servers::ConsulServer;

fn main() {
    let server = ConsulServer::start();
    println!("{}", server.url());
    eprintln!("serving on {}; close standard input (Ctrl-D) to stop", server.address());
    for line in std::io::stdin().lock().lines() {
        if line.is_err() {
            break;
        }
    }
}
