//! `baton exec` and the lease commands, run as the real binary against a SQLite file.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

mod common;

use common::*;

#[test]
fn runs_the_command_with_the_token_and_returns_its_exit_code() {
    let s = store();
    let out = baton(&[
        "exec",
        "--backend",
        &s.url,
        "--lock",
        "job",
        "--",
        "sh",
        "-c",
        "echo \"$BATON_LEASE $BATON_FENCING_TOKEN\"; exit 7",
    ]);
    assert_eq!(out.status.code(), Some(7), "{}", stderr(&out));
    assert_eq!(stdout(&out), "job 1\n");
    let again = baton(&[
        "exec",
        "--backend",
        &s.url,
        "--lock",
        "job",
        "--",
        "sh",
        "-c",
        "echo $BATON_FENCING_TOKEN",
    ]);
    assert_eq!(stdout(&again), "2\n", "the lease was released and the token rose");
    let history = baton(&["history", "--backend", &s.url, "--lease", "job"]);
    let text = stdout(&history);
    assert!(text.contains("fresh") && text.contains("handover"), "{text}");
}

#[test]
fn the_backend_can_come_from_the_environment() {
    let s = store();
    let out = Command::new(BATON)
        .args(["exec", "--lock", "job", "--", "true"])
        .env("BATON_BACKEND", &s.url)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
}

/// Starts baton in the background with piped stdio and returns it with the first line it
/// printed on stdout (or on stderr, if `from_stderr`).
fn start(args: &[&str], from_stderr: bool) -> (Child, String) {
    let mut child = Command::new(BATON)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    let stream: &mut dyn std::io::Read =
        if from_stderr { child.stderr.as_mut().unwrap() } else { child.stdout.as_mut().unwrap() };
    BufReader::new(stream).read_line(&mut line).unwrap();
    (child, line)
}

/// Holds `lease` in a background `baton exec` until the returned child is killed.
fn hold(s: &Store, lease: &str) -> Child {
    let held = "echo held; exec sleep 600";
    let (child, line) =
        start(&["exec", "--backend", &s.url, "--lock", lease, "--", "sh", "-c", held], false);
    assert_eq!(line, "held\n");
    child
}

#[test]
fn a_held_lease_is_skipped_or_failed_as_asked() {
    let s = store();
    let mut holder = hold(&s, "job");
    let skipped =
        baton(&["exec", "--backend", &s.url, "--lock", "job", "--", "sh", "-c", "echo ran"]);
    assert_eq!(skipped.status.code(), Some(0));
    assert_eq!(stdout(&skipped), "", "the command must not run");
    assert!(stderr(&skipped).contains("is held by"), "{}", stderr(&skipped));
    let failed =
        baton(&["exec", "--backend", &s.url, "--lock", "job", "--on-held", "fail", "--", "true"]);
    assert_eq!(failed.status.code(), Some(75));
    holder.kill().unwrap();
    holder.wait().unwrap();
}

#[test]
fn wait_takes_over_when_the_holder_releases() {
    let s = store();
    let first = "echo first; read _; exit 0";
    let (mut holder, _) =
        start(&["exec", "--backend", &s.url, "--lock", "job", "--", "sh", "-c", first], false);
    let second = "echo second $BATON_FENCING_TOKEN";
    let wait = ["exec", "--backend", &s.url, "--lock", "job", "--on-held", "wait", "--"];
    let (waiter, waiting) = start(&[&wait[..], &["sh", "-c", second]].concat(), true);
    assert!(waiting.contains("waiting"), "{waiting}");
    drop(holder.stdin.take());
    assert!(holder.wait().unwrap().success());
    let out = waiter.wait_with_output().unwrap();
    assert!(out.status.success());
    assert_eq!(stdout(&out), "second 2\n");
}

#[test]
fn a_lost_lease_stops_the_command_with_sigterm_then_sigkill() {
    let s = store();
    let stubborn = "trap '' TERM; echo started; while :; do sleep 0.05; done";
    let args = ["exec", "--backend", &s.url, "--lock", "job", "--ttl", "2s", "--", "sh", "-c"];
    let (child, line) = start(&[&args[..], &[stubborn]].concat(), false);
    assert_eq!(line, "started\n");
    let released = Instant::now();
    let out = baton(&["lease", "release", "--force", "--backend", &s.url, "job"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(128 + 9), "killed by SIGKILL after ignoring SIGTERM");
    let text = stderr(&out);
    assert!(text.contains("no longer held") && text.contains("killing it"), "{text}");
    // Loss is noticed at the next renewal (every TTL/5 = 400 ms) and SIGKILL follows 300 ms
    // after SIGTERM; the bound leaves room for process start-up on a loaded machine.
    assert!(released.elapsed() < Duration::from_secs(5), "{:?}", released.elapsed());
    let history = stdout(&baton(&["history", "--backend", &s.url]));
    assert!(history.contains("fresh"), "{history}");
    let next = baton(&["exec", "--backend", &s.url, "--lock", "job", "--", "true"]);
    assert!(next.status.success());
    let history = stdout(&baton(&["history", "--backend", &s.url]));
    assert!(history.contains("forced_release"), "{history}");
}

#[test]
fn bad_input_gets_one_line_and_changes_nothing() {
    let s = store();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec!["exec", "--backend", "redis2://x", "--lock", "a", "--", "true"],
            "unknown backend URL \"redis2://x\"",
        ),
        (vec!["exec", "--backend", &s.url, "--lock", "", "--", "true"], "invalid lease name \"\""),
        (
            vec!["exec", "--backend", &s.url, "--lock", "has space", "--", "true"],
            "invalid lease name \"has space\"",
        ),
        (
            vec!["exec", "--backend", &s.url, "--lock", "a", "--ttl", "5", "--", "true"],
            "invalid duration \"5\"",
        ),
        (
            vec!["exec", "--backend", &s.url, "--lock", "a", "--ttl", "10ms", "--", "true"],
            "invalid TTL 10ms: expected 1s to 30 days",
        ),
        (
            vec![
                "exec",
                "--backend",
                "postgres://baton@127.0.0.1:1/baton",
                "--lock",
                "a",
                "--",
                "true",
            ],
            "127.0.0.1:1",
        ),
    ];
    let long_name = "x".repeat(201);
    let mut cases = cases;
    cases.push((
        vec!["exec", "--backend", &s.url, "--lock", &long_name, "--", "true"],
        "1 to 200 bytes",
    ));
    for (args, expected) in cases {
        let out = baton(&args);
        let err = stderr(&out);
        assert!(!out.status.success(), "{args:?} succeeded");
        assert!(err.contains(expected), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: not one line: {err}");
    }
    let missing_command = baton(&["exec", "--backend", &s.url, "--lock", "a", "--"]);
    assert_eq!(missing_command.status.code(), Some(2));
    assert!(stderr(&missing_command).contains("<CMD>"));
    let list = stdout(&baton(&["lease", "list", "--backend", &s.url]));
    assert_eq!(list.lines().count(), 1, "no lease was created: {list}");
}

#[cfg(target_os = "linux")]
#[tokio::test(flavor = "multi_thread")]
async fn a_killed_baton_exec_takes_its_command_and_the_commands_children_with_it() {
    let s = store();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("writes");
    let mut exec = Command::new(BATON)
        .args(["exec", "--backend", &s.url, "--lock", "job", "--", "sh", "-c"])
        .args([common::writers::SCRIPT, "sh"])
        .arg(&file)
        .stdin(Stdio::null())
        .spawn()
        .unwrap();
    let writers = common::writers::Writers::started(&file).await;
    exec.kill().unwrap();
    exec.wait().unwrap();
    writers.stop_by_themselves().await;
}

#[test]
fn a_long_bad_value_is_cut_in_the_error_line() {
    let s = store();
    let long = "x y".repeat(3_400);
    for args in [
        vec!["exec", "--backend", &s.url, "--lock", &long, "--", "true"],
        vec!["exec", "--backend", &s.url, "--lock", "a", "--ttl", &long, "--", "true"],
        vec!["exec", "--backend", &long, "--lock", "a", "--", "true"],
    ] {
        let err = stderr(&baton(&args));
        assert_eq!(err.trim_end().lines().count(), 1, "not one line: {err}");
        let cut = format!("\"{}…\" (10200 bytes)", &long[..100]);
        assert!(err.contains(&cut), "the value is cut to its first 100 characters: {err}");
        assert!(!err.contains(&long[..101]), "no echo runs past 100 characters: {err}");
    }
}

#[test]
fn a_store_that_cannot_be_opened_is_named_once() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("missing/baton.db").display());
    let out = baton(&["lease", "list", "--backend", &url]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert_eq!(err.matches("unable to open database file").count(), 1, "{err}");
}
