//! `baton demo` end to end: three agent processes, the leader killed, a paused node's late
//! write refused by the fence, a clean verification, nothing left behind.

use std::process::Command;

mod common;

#[test]
fn the_demo_survives_the_leader_crash_with_every_fire_once() {
    let out = Command::new(env!("CARGO_BIN_EXE_baton")).arg("demo").output().expect("baton demo");
    common::demo::assert_clean(&out);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let dir = stdout
        .lines()
        .find_map(|line| line.strip_prefix("baton demo: three agents share one SQLite file in "))
        .expect("the demo names its directory");
    assert!(!std::path::Path::new(dir.trim()).exists(), "the demo removes its directory");
}
