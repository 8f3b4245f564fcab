//! `baton demo` end to end: three agent processes, the leader killed, a paused node's late
//! write refused by the fence, a clean verification, nothing left behind.

use std::process::Command;

#[test]
fn the_demo_survives_the_leader_crash_with_every_fire_once() {
    let out = Command::new(env!("CARGO_BIN_EXE_baton")).arg("demo").output().expect("baton demo");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("dashboard http://127.0.0.1:"), "{stdout}");
    assert!(stdout.contains("with SIGKILL"), "{stdout}");
    assert!(stdout.contains("took over"), "{stdout}");
    assert!(stdout.contains("duplicate fires: 0; unexplained missing fires: 0"), "{stdout}");
    assert!(stdout.contains("expired_takeover"), "the new leader is on record: {stdout}");
    assert!(
        stdout.contains("REJECTED by the fence (at token"),
        "a late write met the fence: {stdout}"
    );
    assert!(stdout.contains("partitions completed:"), "{stdout}");
    assert!(stdout.contains("result: OK, every fire once"), "{stdout}");
    let dir = stdout
        .lines()
        .find_map(|line| line.strip_prefix("baton demo: three agents share one SQLite file in "))
        .expect("the demo names its directory");
    assert!(!std::path::Path::new(dir.trim()).exists(), "the demo removes its directory");
}
