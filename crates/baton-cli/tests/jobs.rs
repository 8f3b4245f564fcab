//! `baton exec --job`, `baton jobs`, `baton executions` and `baton audit`, run as the real
//! binary against a SQLite file.

use std::process::Output;

mod common;

use common::*;

impl Store {
    /// `baton exec --job nightly` for one fire, running `script`.
    fn exec(&self, fire: &str, script: &str) -> Output {
        self.run(&[
            "exec",
            "--job",
            "nightly",
            "--schedule",
            "0 3 * * *",
            "--fire-time",
            fire,
            "--",
            "sh",
            "-c",
            script,
        ])
    }
}

#[test]
fn exec_job_runs_each_fire_until_it_succeeds_and_never_again() {
    let s = store();
    let fire = "2026-11-21T03:00:00Z";
    let first = s.exec(fire, "echo \"$BATON_JOB $BATON_FIRE_TIME $BATON_ATTEMPT\"; exit 3");
    assert_eq!(first.status.code(), Some(3), "{}", stderr(&first));
    assert_eq!(stdout(&first), "nightly 2026-11-21T03:00:00.000Z 1\n");
    let second = s.exec(fire, "echo \"$BATON_ATTEMPT $BATON_EXECUTION_ID\"");
    assert_eq!(second.status.code(), Some(0), "{}", stderr(&second));
    assert_eq!(stdout(&second), "2 2\n", "a failed fire gets a new attempt");
    let third = s.exec(fire, "echo must-not-run");
    assert_eq!(third.status.code(), Some(0), "{}", stderr(&third));
    assert_eq!(stdout(&third), "", "a succeeded fire never runs again");
    assert!(stderr(&third).contains("already succeeded"), "{}", stderr(&third));

    let list = stdout(&s.run(&["executions", "list", "--job", "nightly"]));
    let statuses: Vec<&str> =
        list.lines().skip(1).map(|line| line.split_whitespace().nth(5).unwrap()).collect();
    assert_eq!(statuses, ["failed", "succeeded"], "{list}");
}

#[test]
fn the_tokens_of_successive_attempts_rise() {
    let s = store();
    let fire = "2026-11-20T03:00:00Z";
    let first = s.exec(fire, "echo $BATON_FENCING_TOKEN; exit 1");
    let second = s.exec(fire, "echo $BATON_FENCING_TOKEN");
    let token = |out: &Output| stdout(out).trim().parse::<u64>().expect("a token");
    assert!(token(&second) > token(&first), "{} then {}", token(&first), token(&second));
}

#[test]
fn jobs_commands_control_a_registered_job() {
    let s = store();
    assert!(s.exec("2026-11-21T03:00:00Z", "true").status.success());
    let paused = s.run(&["jobs", "pause", "nightly"]);
    assert_eq!(stdout(&paused), "job nightly is paused\n", "{}", stderr(&paused));
    let show = stdout(&s.run(&["jobs", "show", "nightly"]));
    assert!(show.contains("state      paused"), "{show}");
    assert!(show.contains("schedule   cron \"0 3 * * *\" in UTC"), "{show}");
    let skip = stdout(&s.run(&["jobs", "skip-next", "nightly"]));
    assert!(skip.contains("will be skipped"), "{skip}");
    assert!(stdout(&s.run(&["jobs", "show", "nightly"])).contains("skipping   fires up to"));
    let resumed = s.run(&["jobs", "resume", "nightly"]);
    assert_eq!(stdout(&resumed), "job nightly is active\n");
    let triggered = stdout(&s.run(&["jobs", "trigger", "nightly"]));
    assert!(triggered.starts_with("job nightly: execution "), "{triggered}");
    let list = stdout(&s.run(&["jobs", "list"]));
    assert!(list.contains("nightly") && list.contains("active"), "{list}");
}

#[test]
fn audit_reports_missing_fires_and_exits_non_zero() {
    let s = store();
    // A job registered now owes nothing from before: the audit of the past is clean.
    assert!(s.exec("2026-11-21T03:00:00Z", "true").status.success());
    let clean = s.run(&["audit", "--since", "2h", "--until", "1s"]);
    assert_eq!(clean.status.code(), Some(0), "{}{}", stdout(&clean), stderr(&clean));
    assert!(stdout(&clean).contains("duplicates          0"), "{}", stdout(&clean));
    // An every-second job registered by exec owes a fire each second from then on; nothing
    // runs them, so the audit finds them missing.
    let every = s.run(&[
        "exec",
        "--job",
        "tick",
        "--schedule",
        "* * * * * *",
        "--idempotency-key",
        "setup",
        "--",
        "true",
    ]);
    assert!(every.status.success(), "{}", stderr(&every));
    let waited = std::time::Instant::now();
    let missing = loop {
        let out = s.run(&["audit", "--job", "tick", "--since", "10s", "--until", "0s"]);
        if out.status.code() == Some(1) || waited.elapsed() > std::time::Duration::from_secs(10) {
            break out;
        }
        std::thread::sleep(std::time::Duration::from_millis(200));
    };
    assert_eq!(missing.status.code(), Some(1), "{}", stdout(&missing));
    assert!(stdout(&missing).contains("missing: tick at"), "{}", stdout(&missing));
}

#[test]
fn bad_input_gets_one_line_and_changes_nothing() {
    let s = store();
    let long = "j".repeat(201);
    let cases: [&[&str]; 8] = [
        &["exec", "--job", "", "--schedule", "0 3 * * *", "--", "true"],
        &["exec", "--job", &long, "--schedule", "0 3 * * *", "--", "true"],
        &["exec", "--job", "j", "--schedule", "0 0 30 2 *", "--", "true"],
        &[
            "exec",
            "--job",
            "j",
            "--schedule",
            "0 3 * * *",
            "--time-zone",
            "Mars/Olympus",
            "--",
            "true",
        ],
        &["exec", "--job", "j", "--schedule", "61 * * * *", "--", "true"],
        &["executions", "list", "--status", "bogus"],
        &["executions", "list", "--after", "nope"],
        &["audit", "--since", "yesterday"],
    ];
    for args in cases {
        let out = s.run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert_eq!(stderr(&out).lines().count(), 1, "{args:?}: {}", stderr(&out));
    }
    let unknown = s.run(&["jobs", "show", "nosuch"]);
    assert_eq!(unknown.status.code(), Some(1));
    assert_eq!(stderr(&unknown), "baton: error: job nosuch is not registered\n");
    let unregistered = s.run(&["exec", "--job", "nosuch", "--", "true"]);
    assert_eq!(unregistered.status.code(), Some(1));
    let err = stderr(&unregistered);
    assert!(
        err.starts_with("baton: error: job nosuch is not registered: pass --schedule"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
    let list = stdout(&s.run(&["jobs", "list"]));
    assert_eq!(list.lines().count(), 1, "no job was stored: {list}");
}
