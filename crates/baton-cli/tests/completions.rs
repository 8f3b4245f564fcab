//! `baton completions SHELL` prints a completion script that knows the subcommands.

mod common;

use common::*;

#[test]
fn each_shell_gets_a_script_naming_the_subcommands() {
    for (shell, marker) in
        [("bash", "complete -F"), ("zsh", "#compdef baton"), ("fish", "complete -c baton")]
    {
        let out = baton(&["completions", shell]);
        assert!(out.status.success(), "{shell}: {}", stderr(&out));
        let script = stdout(&out);
        assert!(script.contains(marker), "{shell}: no {marker:?} in\n{script}");
        for subcommand in ["status", "executions", "completions"] {
            assert!(script.contains(subcommand), "{shell}: {subcommand} missing");
        }
    }
}

#[test]
fn an_unknown_shell_is_refused_on_one_line() {
    let out = baton(&["completions", "tcsh"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(stdout(&out), "");
    let err = stderr(&out);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("tcsh") && err.contains("bash"), "{err}");
}
