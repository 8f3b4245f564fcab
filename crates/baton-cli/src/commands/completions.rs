//! `baton completions SHELL`: the shell's completion script on stdout.

use clap::CommandFactory;

use crate::cli::{Cli, CompletionsArgs};

pub fn run(args: &CompletionsArgs) {
    let mut command = Cli::command();
    clap_complete::generate(args.shell, &mut command, "baton", &mut std::io::stdout());
}
