//! Runs the fault matrix: every store under every fault, round after round, each cell on a
//! throwaway instance, and prints each cell as it ends and the tables at the end.
//!
//! Usage: `baton-fault-matrix [--stores NAME,…] [--faults NAME,…] [--rounds N] [--jobs N]
//! [--json FILE]`, every store and every fault by default, once, two cells at a time as
//! `scripts/test` runs them (`--jobs 1` for one at a time) (`Store::ALL`, `Fault::ALL`; a
//! wrong name is answered with the list). Each cell prints its verdict and what its history
//! shows (writes ok, failed and unknown, the ledger's counts); a failed cell also prints the
//! whole failure, its seed if it made random choices, and the end of its history. It exits with
//! 1 if any cell failed.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, bail};
use baton_testkit::matrix::{self, Binaries, Cell, Fault, Store, Verdict};
use tokio::task::JoinSet;

struct Plan {
    stores: Vec<Store>,
    faults: Vec<Fault>,
    rounds: usize,
    jobs: usize,
    json: Option<PathBuf>,
}

fn plan() -> anyhow::Result<Plan> {
    let mut plan = Plan {
        stores: Store::ALL.to_vec(),
        faults: Fault::ALL.to_vec(),
        rounds: 1,
        jobs: 2,
        json: None,
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let value = args.next().with_context(|| format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--stores" => {
                plan.stores = names(&value, Store::parse, &Store::names())?;
            }
            "--faults" => plan.faults = names(&value, Fault::parse, &Fault::names())?,
            "--rounds" => plan.rounds = at_least_one(&flag, &value)?,
            "--jobs" => plan.jobs = at_least_one(&flag, &value)?,
            "--json" => plan.json = Some(PathBuf::from(value)),
            _ => bail!(
                "unknown option {flag:?}: expected --stores, --faults, --rounds, --jobs or --json"
            ),
        }
    }
    Ok(plan)
}

fn at_least_one(flag: &str, value: &str) -> anyhow::Result<usize> {
    value
        .parse()
        .ok()
        .filter(|n| *n > 0)
        .with_context(|| format!("{flag} {value:?}: expected a whole number from 1"))
}

fn names<T>(list: &str, parse: fn(&str) -> Option<T>, accepted: &str) -> anyhow::Result<Vec<T>> {
    list.split(',')
        .map(|name| {
            parse(name.trim())
                .with_context(|| format!("unknown name {name:?}: expected {accepted}"))
        })
        .collect()
}

#[tokio::main]
async fn main() -> ExitCode {
    match run().await {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(err) => {
            eprintln!("baton-fault-matrix: {err:#}");
            ExitCode::from(2)
        }
    }
}

/// Runs the plan; answers whether every cell passed or did not apply.
async fn run() -> anyhow::Result<bool> {
    let plan = plan()?;
    let exe = std::env::current_exe()?;
    let binaries =
        Binaries::in_dir(exe.parent().context("the runner's directory")?).map_err(|missing| {
            anyhow::anyhow!(
                "{} is missing: build it with `cargo build -p baton-testkit --bins`",
                missing.display()
            )
        })?;
    let mut cells = Vec::new();
    let mut running = JoinSet::new();
    for round in 1..=plan.rounds {
        for store in &plan.stores {
            for fault in &plan.faults {
                if running.len() == plan.jobs {
                    cells.push(report(running.join_next().await.expect("a running cell")?));
                }
                let (store, fault, binaries) = (*store, *fault, binaries.clone());
                running
                    .spawn(async move { (round, matrix::run_cell(store, fault, &binaries).await) });
            }
        }
    }
    while let Some(done) = running.join_next().await {
        cells.push(report(done?));
    }
    println!("\n{}", matrix::markdown(&cells));
    if let Some(path) = &plan.json {
        std::fs::write(path, matrix::json(&cells))
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(cells.iter().all(|cell| !matches!(cell.verdict, Verdict::Failed(_))))
}

/// Prints a cell of round `round` as it ended: its verdict, what its history shows, and for a
/// failed cell the end of its history.
fn report((round, cell): (usize, Cell)) -> Cell {
    println!(
        "round {round}  {:<10} {:<15} {:<4} {:>6.1} s  {}",
        cell.store.name(),
        cell.fault.name(),
        cell.verdict.label(),
        cell.seconds,
        cell.verdict.detail()
    );
    if !matches!(cell.verdict, Verdict::NotApplicable(_)) {
        println!("         {}", cell.summary);
    }
    if let Some(excerpt) = &cell.excerpt {
        println!("{excerpt}");
    }
    cell
}
