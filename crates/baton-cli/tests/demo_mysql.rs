//! `baton demo --backend mysql://…`: the same cluster on a throwaway MariaDB server, and a
//! second run refused because the database already holds the first one's record.

use std::process::Command;

use baton_testkit::servers::MariadbServer;

mod common;

#[test]
fn the_demo_runs_clean_on_mariadb_and_refuses_a_used_database() {
    let server = MariadbServer::start();
    let demo = || {
        Command::new(env!("CARGO_BIN_EXE_baton"))
            .args(["demo", "--backend", &server.url()])
            .output()
            .expect("baton demo")
    };
    let first = demo();
    common::demo::assert_clean(&first);
    let stdout = String::from_utf8_lossy(&first.stdout);
    assert!(stdout.contains("baton demo: three agents share mysql://root@127.0.0.1:"), "{stdout}");

    let again = demo();
    assert!(!again.status.success());
    let stderr = String::from_utf8_lossy(&again.stderr);
    assert!(stderr.contains("already has jobs"), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
}
