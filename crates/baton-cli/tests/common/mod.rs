//! What the command-line tests share: the `baton` binary, a SQLite store in a temporary
//! directory, and the output of a run as text.

#![allow(dead_code)] // each test binary uses its own part

pub mod agent;
pub mod demo;
pub mod split;
pub mod writers;

use std::process::{Command, Output};

/// The `baton` binary under test.
pub const BATON: &str = env!("CARGO_BIN_EXE_baton");

/// A SQLite database file in a temporary directory, removed on drop.
pub struct Store {
    _dir: tempfile::TempDir,
    /// Its backend URL.
    pub url: String,
}

/// A new, empty store.
pub fn store() -> Store {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("baton.db").display());
    Store { _dir: dir, url }
}

impl Store {
    /// Runs baton with this store as `BATON_BACKEND`.
    pub fn run(&self, args: &[&str]) -> Output {
        Command::new(BATON).env("BATON_BACKEND", &self.url).args(args).output().expect("baton")
    }
}

/// Runs baton with `args` only.
pub fn baton(args: &[&str]) -> Output {
    Command::new(BATON).args(args).output().expect("running baton")
}

/// A run's standard output.
pub fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// A run's standard error.
pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}
