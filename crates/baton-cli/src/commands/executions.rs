//! `baton executions list`: executions, a page at a time.

use baton::Cursor;
use baton::core::job::ExecutionListParams;
use baton::core::page::check_page_size;
use baton::core::{Execution, ExecutionStatus};

use super::connect;
use crate::cli::ExecutionsCommand;

pub async fn run(command: ExecutionsCommand) -> anyhow::Result<()> {
    let ExecutionsCommand::List(args) = command;
    let params = ExecutionListParams {
        job: args.job.as_deref().map(str::parse).transpose()?,
        status: args.status.as_deref().map(str::parse::<ExecutionStatus>).transpose()?,
        after: args.page.after.as_deref().map(Cursor::parse).transpose()?,
        limit: check_page_size(args.page.limit)?,
        ..ExecutionListParams::default()
    };
    let store = connect(&args.page.backend).await?.jobs();
    let page = store.execution_list(params).await?;
    println!(
        "{:>8} {:<24} {:<24} {:>3} {:<9} {:<10} {:>8} {:<24} DETAIL",
        "ID", "JOB", "SCHEDULED", "TRY", "TRIGGER", "STATUS", "TOKEN", "NODE"
    );
    for execution in &page.items {
        print_row(execution);
    }
    if let Some(next) = page.next {
        println!("next page: --after {next}");
    }
    Ok(())
}

fn print_row(e: &Execution) {
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
