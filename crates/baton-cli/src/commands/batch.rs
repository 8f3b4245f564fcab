//! `baton batch list` and `baton batch status`: the batches of partitioned jobs.

use baton::core::cluster::{
    BatchJob, BatchListParams, ClusterStore, Partition, PartitionListParams, PartitionState,
    batch_not_found,
};
use baton::core::page::{MAX_PAGE_SIZE, check_page_size};
use baton::{Cursor, StoreTime};
use baton_server::views::{BatchDetailView, BatchView, PageView, PartitionView};

use super::age::age;
use super::connect;
use super::output::print_json;
use crate::cli::{BatchArg, BatchCommand, BatchListArgs, Output};

pub async fn run(command: BatchCommand, output: Output) -> anyhow::Result<()> {
    match command {
        BatchCommand::List(args) => list(args, output).await,
        BatchCommand::Status(arg) => status(arg, output).await,
        BatchCommand::Run(args) => super::batch_run::run(args, output).await,
    }
}

async fn list(args: BatchListArgs, output: Output) -> anyhow::Result<()> {
    let params = BatchListParams {
        name: args.job.as_deref().map(str::parse).transpose()?,
        after: args.page.after.as_deref().map(Cursor::parse).transpose()?,
        limit: check_page_size(args.page.limit)?,
        ..BatchListParams::default()
    };
    let store = connect(&args.page.backend).await?.cluster();
    let page = store.batch_list(params).await?;
    if output == Output::Json {
        return print_json(&PageView::<BatchView>::of(&page));
    }
    println!(
        "{:>8} {:<24} {:<22} {:<9} {:<24} {:<24} FAILURE",
        "ID", "JOB", "STRATEGY", "STATE", "CREATED", "FINISHED"
    );
    for batch in &page.items {
        let row = format!(
            "{:>8} {:<24} {:<22} {:<9} {:<24} {:<24} {}",
            batch.id,
            batch.name,
            batch.strategy,
            batch.state,
            batch.created_at,
            batch.finished_at.map_or("-".to_string(), |at| at.to_string()),
            batch.failure.as_deref().unwrap_or_default()
        );
        println!("{}", row.trim_end());
    }
    if let Some(next) = page.next {
        println!("next page: --after {next}");
    }
    Ok(())
}

async fn status(arg: BatchArg, output: Output) -> anyhow::Result<()> {
    let store = connect(&arg.backend).await?.cluster();
    let batch = store.batch_get(arg.id).await?.ok_or_else(|| batch_not_found(arg.id))?;
    if output == Output::Json {
        let partitions = all_partitions(&*store, batch.id).await?;
        return print_json(&BatchDetailView { batch: BatchView::from(&batch), partitions });
    }
    let now = store.now().await?;
    print_batch(&batch);
    let totals = print_partitions(&*store, batch.id, now).await?;
    let counted: Vec<String> = PartitionState::ALL
        .iter()
        .zip(totals.iter())
        .map(|(state, count)| format!("{count} {state}"))
        .collect();
    println!("partitions {}: {}", totals.iter().sum::<u64>(), counted.join(", "));
    Ok(())
}

fn print_batch(batch: &BatchJob) {
    println!("batch      {}", batch.id);
    println!("job        {}", batch.name);
    match batch.stealing {
        true => println!("strategy   {} with stealing", batch.strategy),
        false => println!("strategy   {}", batch.strategy),
    }
    println!("state      {}", batch.state);
    println!("created    {}", batch.created_at);
    if let Some(at) = batch.finished_at {
        println!("finished   {at}");
    }
    if let Some(failure) = &batch.failure {
        println!("failure    {failure}");
    }
    println!();
}

/// Every partition of the batch as one page (read a page of the store at a time).
async fn all_partitions(
    store: &dyn ClusterStore,
    batch: i64,
) -> anyhow::Result<PageView<PartitionView>> {
    let mut items = Vec::new();
    let mut params =
        PartitionListParams { limit: MAX_PAGE_SIZE, ..PartitionListParams::new(batch) };
    loop {
        let page = store.partition_list(params.clone()).await?;
        items.extend(page.items.iter().map(PartitionView::from));
        match page.next {
            Some(next) => params.after = Some(next),
            None => return Ok(PageView { items, next: None }),
        }
    }
}

/// Prints every partition of the batch, a page at a time, and answers how many are in each
/// state, in the order of [`PartitionState::ALL`].
async fn print_partitions(
    store: &dyn ClusterStore,
    batch: i64,
    now: StoreTime,
) -> anyhow::Result<Vec<u64>> {
    println!(
        "{:>8} {:<24} {:<24} {:<9} {:>3} {:>10} {:>8} {:>14} ERROR",
        "ID", "KEY", "NODE", "STATE", "TRY", "PROGRESS", "TOKEN", "HEARTBEAT"
    );
    let mut totals = vec![0; PartitionState::ALL.len()];
    let mut params =
        PartitionListParams { limit: MAX_PAGE_SIZE, ..PartitionListParams::new(batch) };
    loop {
        let page = store.partition_list(params.clone()).await?;
        for partition in &page.items {
            print_partition(partition, now);
            if let Some(slot) = PartitionState::ALL.iter().position(|s| *s == partition.state) {
                totals[slot] += 1;
            }
        }
        match page.next {
            Some(next) => params.after = Some(next),
            None => return Ok(totals),
        }
    }
}

fn print_partition(p: &Partition, now: StoreTime) {
    let row = format!(
        "{:>8} {:<24} {:<24} {:<9} {:>3} {:>10} {:>8} {:>14} {}",
        p.id,
        p.key,
        p.node.as_ref().map_or("-", |node| node.as_str()),
        p.state,
        p.attempts,
        p.progress,
        p.token.map_or("-".to_string(), |token| token.to_string()),
        p.heartbeat_at.map_or("-".to_string(), |at| age(now, at)),
        p.error.as_deref().and_then(|error| error.lines().next()).unwrap_or_default()
    );
    println!("{}", row.trim_end());
}
