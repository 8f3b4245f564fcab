//! One cell of the matrix: a fault inflicted on a throwaway instance of a store, its verdict and
//! how long it took.

use std::time::Instant;

use super::{Binaries, Fault, Store};

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
    /// How long the cell ran, server start included.
    pub seconds: f64,
}

/// Starts a throwaway instance of `store` with nodes running `binaries`, inflicts `fault` and
/// checks the ledger. A failed check is a [`Verdict::Failed`] (the panic of the scenario,
/// caught), not a panic of the caller.
pub async fn run_cell(store: Store, fault: Fault, binaries: &Binaries) -> Cell {
    let started = Instant::now();
    let verdict = match fault.applies_to(store) {
        Err(why) => Verdict::NotApplicable(why),
        Ok(()) => {
            let binaries = binaries.clone();
            let inflicted = tokio::spawn(async move {
                let running = store.start(&binaries).await;
                fault.inflict(&running).await
            });
            match inflicted.await {
                Ok(figures) => Verdict::Passed(figures),
                Err(err) if err.is_panic() => Verdict::Failed(first_line(&panic_text(err))),
                Err(err) => Verdict::Failed(first_line(&err.to_string())),
            }
        }
    };
    Cell { store, fault, verdict, seconds: started.elapsed().as_secs_f64() }
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
