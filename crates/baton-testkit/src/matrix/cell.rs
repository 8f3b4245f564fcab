//! One cell of the matrix: a fault inflicted on a throwaway instance of a store, its verdict,
//! its history and how long it took.

use std::time::Instant;

use super::{Binaries, Fault, Store};
use crate::history::{History, Summary};

/// How many rows of its history a failed cell shows.
const EXCERPT_ROWS: usize = 40;

/// What a cell found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Every check held; what the fault measured, for the table.
    Passed(String),
    /// A check failed (or the cell could not run): the first line of the failure.
    Failed(String),
    /// The fault cannot happen to this store, and why.
    NotApplicable(&'static str),
}

/// A store under a fault, judged.
#[derive(Debug, Clone)]
pub struct Cell {
    /// The store.
    pub store: Store,
    /// The fault.
    pub fault: Fault,
    /// What the checks found.
    pub verdict: Verdict,
    /// The operations, terms and ledgers its history shows.
    pub summary: Summary,
    /// For a failed cell, the whole failure, the seed of its random choices (if it made any)
    /// and the end of its history.
    pub excerpt: Option<String>,
    /// How long the cell ran, server start included.
    pub seconds: f64,
}

/// Starts a throwaway instance of `store` with nodes running `binaries`, inflicts `fault` and
/// checks the ledger and the cell's history. A failed check is a [`Verdict::Failed`] (the panic
/// of the scenario, caught, or the first violation its history shows), not a panic of the
/// caller.
pub async fn run_cell(store: Store, fault: Fault, binaries: &Binaries) -> Cell {
    let started = Instant::now();
    let history = History::new();
    let failure = match fault.applies_to(store) {
        Err(why) => Err(Verdict::NotApplicable(why)),
        Ok(()) => {
            let binaries = binaries.clone();
            let inflicted = tokio::spawn(history.scope(async move {
                let running = store.start(&binaries).await;
                fault.inflict(&running).await
            }));
            match inflicted.await {
                Ok(figures) => Err(Verdict::Passed(figures)),
                Err(err) if err.is_panic() => Ok(panic_text(err)),
                Err(err) => Ok(err.to_string()),
            }
        }
    };
    let summary = history.summary();
    let failure = match (failure, summary.violations().first()) {
        (Err(Verdict::Passed(_)), Some(violation)) => Ok(violation.clone()),
        (failure, _) => failure,
    };
    let (verdict, excerpt) = match failure {
        Err(verdict) => (verdict, None),
        Ok(text) => {
            let excerpt = format!("{text}\n{}", history.excerpt(EXCERPT_ROWS));
            (Verdict::Failed(first_line(&text)), Some(excerpt))
        }
    };
    Cell { store, fault, verdict, summary, excerpt, seconds: started.elapsed().as_secs_f64() }
}

impl Verdict {
    /// The verdict's word in the table and the JSON: `pass`, `fail` or `n/a`.
    pub fn label(&self) -> &'static str {
        match self {
            Verdict::Passed(_) => "pass",
            Verdict::Failed(_) => "fail",
            Verdict::NotApplicable(_) => "n/a",
        }
    }

    /// What the fault measured, the first line of the failure, or why the fault cannot happen.
    pub fn detail(&self) -> &str {
        match self {
            Verdict::Passed(figures) => figures,
            Verdict::Failed(why) => why,
            Verdict::NotApplicable(why) => why,
        }
    }
}

fn panic_text(err: tokio::task::JoinError) -> String {
    let payload = err.into_panic();
    match payload.downcast::<String>() {
        Ok(text) => *text,
        Err(payload) => match payload.downcast::<&'static str>() {
            Ok(text) => text.to_string(),
            Err(_) => "a panic without a message".to_string(),
        },
    }
}

fn first_line(text: &str) -> String {
    text.lines().next().unwrap_or_default().to_string()
}
