//! The lease protocol's model, `model/lease.pml`, checked exhaustively by spin: the protocol
//! keeps its properties within the model's bounds, and each bug planted behind a define is
//! caught with a counterexample. Needs `spin` and a C compiler on the PATH.

use std::path::Path;
use std::process::Command;

const MODEL: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/model/lease.pml");

/// The bugs the model plants behind a define, each of which must be caught.
const PLANTED: [&str; 5] = [
    "BUG_DEADLINE_FROM_RECEIPT",
    "BUG_TRUST_READBACK",
    "BUG_NO_FENCE",
    "BUG_ACT_AFTER_RELEASE",
    "BUG_COUNTER_ONLY",
];

/// What a verification run reported.
struct Verdict {
    errors: u64,
    complete: bool,
    report: String,
}

/// Generates the verifier for the model with `define` set, compiles it and runs it.
fn verify(define: Option<&str>) -> Verdict {
    let dir = tempfile::tempdir().unwrap();
    let mut spin = Command::new("spin");
    if let Some(define) = define {
        spin.arg(format!("-D{define}"));
    }
    run(
        spin.current_dir(&dir).args(["-a", MODEL]),
        "spin",
        "install the spin package (scripts/test does this when run as root)",
    );
    run(
        Command::new("cc").current_dir(&dir).args(["-O2", "-DSAFETY", "-o", "pan", "pan.c"]),
        "cc",
        "install a C compiler (the gcc package)",
    );
    // -E: blocked holders at the end of time are expected; only assertions are checked.
    let report = run(
        Command::new(Path::new(dir.path()).join("pan"))
            .current_dir(&dir)
            .args(["-E", "-m10000000"]),
        "pan",
        "",
    );
    let errors = report
        .lines()
        .find_map(|line| line.split_once("errors: ").map(|(_, n)| n.trim().parse().unwrap()))
        .unwrap_or_else(|| panic!("no error count in the report:\n{report}"));
    Verdict { errors, complete: !report.contains("Search not completed"), report }
}

/// Runs `command`, failing the test with `install` if the program is missing; answers stdout.
fn run(command: &mut Command, program: &str, install: &str) -> String {
    let output = command
        .output()
        .unwrap_or_else(|err| panic!("{program} could not be started ({err}): {install}"));
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    // pan exits 0 whether or not it found errors; spin and cc fail on a broken model.
    assert!(
        output.status.success(),
        "{program} failed: {}{stdout}",
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

#[test]
fn the_protocol_keeps_its_properties_in_every_state() {
    let verdict = verify(None);
    assert!(verdict.complete, "the search did not complete:\n{}", verdict.report);
    assert_eq!(verdict.errors, 0, "a property fails:\n{}", verdict.report);
}

#[test]
fn each_planted_bug_is_caught() {
    for bug in PLANTED {
        let verdict = verify(Some(bug));
        assert!(verdict.errors > 0, "{bug} was not caught:\n{}", verdict.report);
    }
}
