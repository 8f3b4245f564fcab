//! `baton history`: the leader-change history, a page at a time.

use baton::{Cursor, HistoryParams, LeaseName};
use baton_server::views::{LeaderChangeView, PageView};

use super::connect_leases;
use super::output::print_json;
use crate::cli::{HistoryArgs, Output};

pub async fn run(args: HistoryArgs, output: Output) -> anyhow::Result<()> {
    let params = HistoryParams {
        lease: args.lease.as_deref().map(str::parse::<LeaseName>).transpose()?,
        after: args.after.as_deref().map(Cursor::parse).transpose()?,
        limit: baton::core::page::check_page_size(args.limit)?,
    };
    let store = connect_leases(&args.backend).await?;
    let page = store.history(params).await?;
    if output == Output::Json {
        return print_json(&PageView::<LeaderChangeView>::of(&page));
    }
    println!(
        "{:>8} {:<26} {:<32} {:>8} {:<17} {:>10} HOLDER",
        "ID", "AT", "LEASE", "TOKEN", "REASON", "FAILOVER"
    );
    for change in &page.items {
        let failover = change.failover().map_or("-".to_string(), |gap| format!("{gap:.3?}"));
        println!(
            "{:>8} {:<26} {:<32} {:>8} {:<17} {:>10} {}",
            change.id,
            change.at,
            change.lease,
            change.token,
            change.reason,
            failover,
            change.holder
        );
    }
    if let Some(next) = page.next {
        println!("next page: --after {next}");
    }
    Ok(())
}
