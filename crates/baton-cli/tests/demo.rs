//! `baton demo` end to end: three node processes, the leader killed, a clean verification.

use std::process::Command;

#[test]
fn the_demo_survives_the_leader_crash_with_every_fire_once() {
    let out = Command::new(env!("CARGO_BIN_EXE_baton")).arg("demo").output().expect("baton demo");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("with SIGKILL"), "{stdout}");
    assert!(stdout.contains("took over"), "{stdout}");
    assert!(stdout.contains("duplicate fires: 0; unexplained missing fires: 0"), "{stdout}");
    assert!(stdout.contains("expired_takeover"), "the new leader is on record: {stdout}");
    assert!(stdout.contains("result: OK, every fire once"), "{stdout}");
}
