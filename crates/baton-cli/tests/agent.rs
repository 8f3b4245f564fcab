//! `baton agent --config FILE`: every refused config file answers exit 2 and one line naming
//! the file, the line and the key, and starts nothing; `--check` accepts good files.

use std::process::Output;

mod common;

use common::agent::{Site, workspace};
use common::*;

/// A job that is fine, for cases about other keys.
const JOB: &str = "[[job]]\nname = \"report\"\ncommand = [\"true\"]\nevery = \"1m\"\n";

/// Asserts a refusal: exit 2, nothing on stdout, and exactly one line on stderr starting with
/// `baton: error: {prefix}` and containing `detail`.
fn assert_refused(out: &Output, prefix: &str, detail: &str) {
    let err = stderr(out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(stdout(out), "");
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    assert!(err.starts_with(&format!("baton: error: {prefix}")), "{prefix}: {err}");
    assert!(err.contains(detail), "{detail}: {err}");
}

#[test]
fn each_refused_file_names_the_file_line_and_key() {
    let cases: &[(&str, String, &str, &str)] = &[
        (
            "an unknown key",
            format!("{JOB}bogus = 1\n"),
            "baton.toml:5: job[0].bogus: unknown field `bogus`",
            "expected one of `name`, `command`",
        ),
        (
            "an unknown table",
            "[server]\nport = 1\n".into(),
            "baton.toml:1: server: unknown field `server`",
            "expected one of",
        ),
        (
            "a wrong type",
            "[[job]]\nname = \"a\"\ncommand = \"./run.sh\"\nevery = \"1m\"\n".into(),
            "baton.toml:3: job[0].command: invalid type: string \"./run.sh\"",
            "expected a list of the program and its arguments",
        ),
        (
            "a duration given as a number",
            "grace_period = 30\n".into(),
            "baton.toml:1: grace_period: invalid type: integer `30`",
            "expected a duration in quotes",
        ),
        (
            "a job with no command",
            "[[job]]\nname = \"a\"\nevery = \"1m\"\n".into(),
            "baton.toml:1: job[0].command: missing",
            "expected the program and its arguments",
        ),
        (
            "a duplicated job name",
            format!("{JOB}\n[[batch]]\nname = \"report\"\ncommand = [\"true\"]\npartitions = 2\n"),
            "baton.toml:7: batch[0].name: duplicate name \"report\", also job[0]",
            "expected each name once",
        ),
        (
            "a missing working directory",
            format!("{JOB}working_dir = \"nowhere\"\n"),
            "baton.toml:5: job[0].working_dir: cannot read directory",
            "expected an existing, readable directory",
        ),
        (
            "a working directory that is a file",
            format!("{JOB}working_dir = \"baton.toml\"\n"),
            "baton.toml:5: job[0].working_dir: cannot read directory",
            "expected an existing, readable directory",
        ),
        (
            "a cron expression that can never fire",
            "[[job]]\nname = \"a\"\ncommand = [\"true\"]\ncron = \"0 0 30 2 *\"\n".into(),
            "baton.toml:4: job[0].cron: invalid cron expression \"0 0 30 2 *\"",
            "it never fires",
        ),
        (
            "a malformed cron expression",
            "[[job]]\nname = \"a\"\ncommand = [\"true\"]\ncron = \"every day\"\n".into(),
            "baton.toml:4: job[0].cron: invalid cron expression \"every day\"",
            "expected 5 fields",
        ),
        (
            "an unknown time zone",
            "[[job]]\nname = \"a\"\ncommand = [\"x\"]\ncron = \"0 9 * * *\"\ntime_zone = \"Mars/Olympus\"\n"
                .into(),
            "baton.toml:5: job[0].time_zone: unknown time zone \"Mars/Olympus\"",
            "expected an IANA name",
        ),
        (
            "two schedules",
            format!("{JOB}cron = \"0 9 * * *\"\n"),
            "baton.toml:4: job[0].every: conflicts with cron",
            "expected exactly one of cron, every or at",
        ),
        (
            "no schedule",
            "[[job]]\nname = \"a\"\ncommand = [\"true\"]\n".into(),
            "baton.toml:1: job[0]: no schedule",
            "expected exactly one of cron, every or at",
        ),
        (
            "an unknown overlap policy",
            format!("{JOB}overlap = \"skip\"\n"),
            "baton.toml:5: job[0].overlap: invalid overlap policy \"skip\"",
            "expected one of allow, forbid, replace, buffer-one",
        ),
        (
            "a malformed timeout",
            format!("{JOB}timeout = \"5 minutes\"\n"),
            "baton.toml:5: job[0].timeout: invalid duration \"5 minutes\"",
            "expected a number with a unit",
        ),
        (
            "a timeout below the minimum",
            format!("{JOB}timeout = \"10ms\"\n"),
            "baton.toml:5: job[0].timeout: invalid timeout 10ms",
            "expected at least 1s",
        ),
        (
            "retries out of range",
            format!("{JOB}[job.retry]\nmax_attempts = 0\n"),
            "baton.toml:6: job[0].retry.max_attempts: invalid max_attempts 0",
            "expected 1 (no retries) to 100",
        ),
        (
            "a negative count",
            format!("{JOB}retention = {{ keep_failed = -1 }}\n"),
            "baton.toml:5: job[0].retention.keep_failed: invalid value: integer `-1`",
            "expected u32",
        ),
        (
            "a partition count of zero",
            "[[batch]]\nname = \"b\"\ncommand = [\"true\"]\npartitions = 0\n".into(),
            "baton.toml:4: batch[0].partitions: invalid partition count 0",
            "expected 1 to 100000",
        ),
        (
            "a duplicated partition key",
            "[[batch]]\nname = \"b\"\ncommand = [\"true\"]\npartitions = [\"eu\", \"eu\"]\n".into(),
            "baton.toml:4: batch[0].partitions[1]: duplicate partition key \"eu\"",
            "expected each key once",
        ),
        (
            "an unknown strategy",
            "[[batch]]\nname = \"b\"\ncommand = [\"true\"]\npartitions = 2\nstrategy = \"random\"\n"
                .into(),
            "baton.toml:5: batch[0].strategy: invalid partition strategy \"random\"",
            "expected round-robin, fixed-node-count(K)",
        ),
        (
            "stealing in a free-for-all batch",
            "[[batch]]\nname = \"b\"\ncommand = [\"true\"]\npartitions = 2\n\
             strategy = \"free-for-all\"\nstealing = true\n"
                .into(),
            "baton.toml:6: batch[0].stealing: invalid work stealing with strategy free-for-all",
            "expected an assigning strategy",
        ),
        (
            "incoherent timing",
            "[timing]\nheartbeat_interval = \"5s\"\n".into(),
            "baton.toml:1: timing.unreachable_after: invalid unreachable threshold 10s",
            "expected at least three heartbeat intervals (15s)",
        ),
        (
            "a lease TTL that leaves no room to renew",
            "[timing]\nlease_ttl = \"10ms\"\n".into(),
            "baton.toml:2: timing.lease_ttl: invalid TTL 10ms",
            "expected 1s to 30 days",
        ),
        (
            "an unknown backend",
            "backend = \"mongodb://db/baton\"\n".into(),
            "baton.toml:1: backend: unknown backend URL \"mongodb://db/baton\"",
            "expected sqlite://PATH",
        ),
        (
            "a bad listen address",
            "[http]\nlisten = \"localhost\"\n".into(),
            "baton.toml:2: http.listen: invalid listen address \"localhost\"",
            "expected IP:PORT",
        ),
        (
            "a token with spaces",
            "[http]\nadmin_token = \"two words\"\n".into(),
            "baton.toml:2: http.admin_token: invalid token",
            "expected a non-empty token without spaces",
        ),
        (
            "invalid TOML",
            "backend = \"sqlite://a.db\"\nnode_id = = \"x\"\n".into(),
            "baton.toml:2: invalid TOML: ",
            "",
        ),
    ];
    for (case, text, prefix, detail) in cases {
        let site = Site::new();
        site.write("baton.toml", text);
        let out = site.check("baton.toml");
        assert_refused(&out, prefix, detail);
        assert!(!stderr(&out).contains("two words"), "{case}: a token is never repeated");
    }
}

#[test]
fn a_refused_file_starts_nothing_and_creates_no_store() {
    let site = Site::new();
    let text = format!("backend = \"{}\"\n{JOB}timeout = \"soon\"\n", site.url);
    site.write("baton.toml", &text);
    let out = site.baton(&["agent", "--config", "baton.toml"]).output().unwrap();
    assert_refused(&out, "baton.toml:6: job[0].timeout: invalid duration \"soon\"", "expected");
    assert!(!site.path("baton.db").exists(), "no store was created");
}

#[test]
fn a_taken_port_stops_the_agent_before_it_creates_its_store() {
    let site = Site::new();
    site.write("baton.toml", &format!("backend = \"{}\"\n", site.url));
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = taken.local_addr().unwrap().to_string();
    let out = site
        .baton(&["agent", "--config", "baton.toml"])
        .env("BATON_LISTEN", &address)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains(&format!("cannot listen on {address}")), "{}", stderr(&out));
    assert!(!site.path("baton.db").exists(), "no store was created");
}

#[test]
fn environment_overrides_are_checked_too() {
    let site = Site::new();
    site.write("baton.toml", JOB);
    let out = site
        .baton(&["agent", "--config", "baton.toml", "--check"])
        .env("BATON_BACKEND", "redis://cache")
        .output()
        .unwrap();
    assert_refused(&out, "BATON_BACKEND: redis://cache holds leases only", "`lease_backend`");
    let out = site
        .baton(&["agent", "--config", "baton.toml", "--check"])
        .env("BATON_READ_TOKEN", "")
        .output()
        .unwrap();
    assert_refused(&out, "BATON_READ_TOKEN: invalid token", "expected a non-empty token");
}

#[test]
fn a_missing_file_is_named() {
    let site = Site::new();
    let out = site.check("absent.toml");
    assert_refused(&out, "absent.toml: cannot read the config file: ", "No such file");
}

#[test]
fn check_accepts_a_good_file_and_prints_one_summary_line() {
    let site = Site::new();
    std::fs::create_dir(site.path("work")).unwrap();
    let text = format!(
        "backend = \"{url}\"\nnode_id = \"web-1\"\n\n{JOB}working_dir = \"work\"\n\
         env = {{ MODE = \"fast\" }}\ntimeout = \"30s\"\n\n\
         [[batch]]\nname = \"reindex\"\ncommand = [\"./reindex.sh\"]\npartitions = [\"eu\", \"us\"]\n\
         strategy = \"fixed-node-count(2)\"\nstealing = true\ncron = \"0 3 * * *\"\ntime_zone = \"Europe/Paris\"\n\n\
         [http]\nlisten = \"0.0.0.0:9000\"\n",
        url = site.url
    );
    site.write("baton.toml", &text);
    let out = site
        .baton(&["agent", "--config", "baton.toml", "--check"])
        .env("BATON_ADMIN_TOKEN", "s3cret")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        format!(
            "baton.toml: ok: 1 job, 1 batch; node web-1; backend {}; http 0.0.0.0:9000 \
             (admin token set, read token not set)\n",
            site.url
        )
    );
    assert!(!site.path("baton.db").exists(), "--check does not touch the store");
}

#[test]
fn check_counts_in_the_plural() {
    let site = Site::new();
    site.write("baton.toml", "");
    let out = site.check("baton.toml");
    assert!(stdout(&out).starts_with("baton.toml: ok: 0 jobs, 0 batches;"), "{}", stdout(&out));
}

#[test]
fn the_example_config_is_accepted() {
    let example = workspace().join("examples/baton.toml");
    let out = baton(&["agent", "--config", example.to_str().unwrap(), "--check"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains(": ok: "), "{}", stdout(&out));
}

#[test]
fn the_kubernetes_config_map_holds_an_accepted_config() {
    let manifest =
        std::fs::read_to_string(workspace().join("deploy/kubernetes/configmap.yaml")).unwrap();
    let mut lines = manifest.lines().skip_while(|line| line.trim() != "baton.toml: |").skip(1);
    let mut text = String::new();
    for line in lines.by_ref().take_while(|line| line.is_empty() || line.starts_with("    ")) {
        text.push_str(line.strip_prefix("    ").unwrap_or(line));
        text.push('\n');
    }
    assert!(text.contains("[[job]]"), "the config map's baton.toml: {text}");
    let site = Site::new();
    site.write("baton.toml", &text);
    let out = site.check("baton.toml");
    assert!(out.status.success(), "{}", stderr(&out));
}
