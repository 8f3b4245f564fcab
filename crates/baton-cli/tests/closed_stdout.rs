//! A standard output closed by its reader ends baton quietly: exit status 141 (128 +
//! SIGPIPE), nothing on standard error.

use std::process::{Command, Stdio};

mod common;

use common::{BATON, store};

/// Runs baton with `args` and `vars`, its standard output a pipe whose reading end is already
/// closed, and answers its exit code and standard error.
fn closed(args: &[&str], vars: &[(&str, &str)]) -> (Option<i32>, String) {
    let (reader, writer) = std::io::pipe().expect("a pipe");
    drop(reader);
    let out = Command::new(BATON)
        .args(args)
        .envs(vars.iter().copied())
        .stdin(Stdio::null())
        .stdout(writer)
        .output()
        .expect("baton");
    (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn completions_end_quietly() {
    assert_eq!(closed(&["completions", "bash"], &[]), (Some(141), String::new()));
}

#[test]
fn a_json_listing_ends_quietly() {
    let s = store();
    assert!(s.run(&["migrate"]).status.success());
    let args = ["executions", "list", "--output", "json"];
    assert_eq!(closed(&args, &[("BATON_BACKEND", &s.url)]), (Some(141), String::new()));
}
