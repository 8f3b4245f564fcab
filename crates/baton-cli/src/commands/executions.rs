//! `baton executions list`: executions, a page at a time; `baton executions show`: one, with
//! its output.

use baton::Cursor;
use baton::core::job::ExecutionListParams;
use baton::core::page::check_page_size;
use baton::core::{Execution, ExecutionStatus};
use baton_server::views::{ExecutionView, PageView};

use super::connect;
use super::output::print_json;
use crate::cli::{ExecutionArg, ExecutionListArgs, ExecutionsCommand, Output};

pub async fn run(command: ExecutionsCommand, output: Output) -> anyhow::Result<()> {
    match command {
        ExecutionsCommand::List(args) => list(args, output).await,
        ExecutionsCommand::Show(arg) => show(arg, output).await,
    }
}

async fn list(args: ExecutionListArgs, output: Output) -> anyhow::Result<()> {
    let params = ExecutionListParams {
        job: args.job.as_deref().map(str::parse).transpose()?,
        status: args.status.as_deref().map(str::parse::<ExecutionStatus>).transpose()?,
        after: args.page.after.as_deref().map(Cursor::parse).transpose()?,
        limit: check_page_size(args.page.limit)?,
        ..ExecutionListParams::default()
    };
    let store = connect(&args.page.backend).await?.jobs();
    let page = store.execution_list(params).await?;
    if output == Output::Json {
        return print_json(&PageView::<ExecutionView>::of(&page));
    }
    print_header();
    for execution in &page.items {
        print_row(execution);
    }
    if let Some(next) = page.next {
        println!("next page: --after {next}");
    }
    Ok(())
}

async fn show(arg: ExecutionArg, output: Output) -> anyhow::Result<()> {
    let store = connect(&arg.backend).await?.jobs();
    let execution = store.execution_get(arg.id).await?.ok_or_else(|| {
        baton::Error::new(
            baton::ErrorKind::NotFound,
            format!("execution {} does not exist", arg.id),
        )
    })?;
    let kept = store.execution_output(arg.id).await?;
    match output {
        Output::Json => print_json(&ExecutionView::from(&execution).with_output(kept)),
        Output::Table => {
            print_header();
            print_row(&execution);
            match kept {
                Some(text) => println!("\noutput:\n{}", text.trim_end()),
                None => println!("\nno output recorded"),
            }
            Ok(())
        }
    }
}

fn print_header() {
    println!(
        "{:>8} {:<24} {:<24} {:>3} {:<9} {:<10} {:>8} {:<24} DETAIL",
        "ID", "JOB", "SCHEDULED", "TRY", "TRIGGER", "STATUS", "TOKEN", "NODE"
    );
}

/// Prints one execution as a row of the listing.
pub fn print_row(e: &Execution) {
    let token = e.token.map_or("-".to_string(), |t| t.to_string());
    let node = e.node.as_ref().map_or("-".to_string(), ToString::to_string);
    let mut detail = e.detail.clone().unwrap_or_default();
    if let Some(through) = e.covers_through {
        detail = format!("{detail} ({} fires through {through})", e.covers_count);
    }
    println!(
        "{:>8} {:<24} {:<24} {:>3} {:<9} {:<10} {:>8} {:<24} {}",
        e.id,
        e.job,
        e.scheduled_at.to_string(),
        e.attempt,
        e.trigger,
        e.status,
        token,
        node,
        detail.trim()
    );
}
