//! What every run of `baton demo` must show, whatever its store.

/// Asserts that a demo printed `stdout` and exited successfully: the leader killed and replaced,
/// every fire once, a late write refused by the fence, partitions completed.
pub fn assert_clean(out: &std::process::Output) {
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
}
