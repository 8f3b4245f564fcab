//! `baton nodes`: the cluster's nodes, and `baton nodes changes`: their state history.

use anyhow::Context;
use baton::Cursor;
use baton::core::cluster::{NodeChangesParams, NodeId, NodeListParams, NodeState};
use baton::core::page::check_page_size;
use baton_server::views::{NodeChangeView, NodeView, PageView};

use super::age::age;
use super::connect;
use super::output::print_json;
use crate::cli::{NodeChangesArgs, NodesArgs, NodesCommand, Output};

pub async fn run(args: NodesArgs, output: Output) -> anyhow::Result<()> {
    match args.command {
        Some(NodesCommand::Changes(changes)) => history(changes, output).await,
        None => list(args, output).await,
    }
}

async fn list(args: NodesArgs, output: Output) -> anyhow::Result<()> {
    let params = NodeListParams {
        state: args.state.as_deref().map(str::parse::<NodeState>).transpose()?,
        after: args.after.as_deref().map(Cursor::parse).transpose()?,
        limit: check_page_size(args.limit)?,
    };
    // clap requires the backend when no subcommand is given.
    let backend = args.backend.context("--backend or BATON_BACKEND is required")?;
    let store = connect(&backend).await?.cluster();
    let now = store.now().await?;
    let page = store.node_list(params).await?;
    if output == Output::Json {
        return print_json(&PageView::<NodeView>::of(&page));
    }
    println!(
        "{:<24} {:<16} {:<10} {:<11} {:>14} {:>5} {:>8} STARTED",
        "ID", "HOST", "VERSION", "STATE", "HEARTBEAT", "LOAD", "TOKEN"
    );
    for node in &page.items {
        println!(
            "{:<24} {:<16} {:<10} {:<11} {:>14} {:>5} {:>8} {}",
            node.id,
            node.host,
            node.version,
            node.state,
            age(now, node.heartbeat_at),
            node.load,
            node.token,
            node.started_at
        );
    }
    if let Some(next) = page.next {
        println!("next page: --after {next}");
    }
    Ok(())
}

async fn history(args: NodeChangesArgs, output: Output) -> anyhow::Result<()> {
    let params = NodeChangesParams {
        node: args.node.as_deref().map(str::parse::<NodeId>).transpose()?,
        after: args.page.after.as_deref().map(Cursor::parse).transpose()?,
        limit: check_page_size(args.page.limit)?,
    };
    let store = connect(&args.page.backend).await?.cluster();
    let page = store.node_changes(params).await?;
    if output == Output::Json {
        return print_json(&PageView::<NodeChangeView>::of(&page));
    }
    println!(
        "{:>8} {:<26} {:<24} {:<11} {:<11} {:<13} TOKEN",
        "ID", "AT", "NODE", "FROM", "TO", "REASON"
    );
    for change in &page.items {
        let from = change.from.map_or("-", |state| state.as_str());
        println!(
            "{:>8} {:<26} {:<24} {:<11} {:<11} {:<13} {}",
            change.id, change.at, change.node, from, change.to, change.reason, change.token
        );
    }
    if let Some(next) = page.next {
        println!("next page: --after {next}");
    }
    Ok(())
}
