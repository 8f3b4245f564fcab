//! Counting the SQL statements this process sends, from the events sqlx emits.
//!
//! sqlx reports every statement it executes through its query logger as a `tracing` event with
//! target `sqlx::query` (at DEBUG unless the connection's `log_statements` says otherwise). The
//! layer made by [`statement_counter_layer`] counts those events behind a per-layer filter, so
//! it sees them whatever the log filter of the rest of the subscriber is.
//!
//! What the count covers was checked against sqlx 0.9 (and is printed by every run, see
//! [`self_check`]): a statement run through `query`/`execute`/`fetch` is counted once. A
//! transaction's `BEGIN` is not counted on either backend: sqlx sends it outside the query
//! logger. `COMMIT` and `ROLLBACK` are counted on PostgreSQL (sqlx runs them as ordinary
//! statements) and not on SQLite (its worker thread runs them directly). A pool's health check
//! before handing out a connection is a protocol-level ping, not a statement. Opening a SQLite
//! connection runs its PRAGMAs as one counted statement, so every measured window starts after
//! its clients have connected.
//!
//! Each statement is also attributed to the store call it ran in, when a `tally` wrapper made
//! that call (see the `tally` module).

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use tracing::field::{Field, Visit};
use tracing::{Event, Subscriber};
use tracing_subscriber::filter::{LevelFilter, Targets};
use tracing_subscriber::layer::{Context, Layer};
use tracing_subscriber::registry::LookupSpan;

use crate::tally;

/// The target of the events sqlx emits for each statement.
const SQLX_QUERY_TARGET: &str = "sqlx::query";

static STATEMENTS: AtomicU64 = AtomicU64::new(0);
static RECORDING: AtomicBool = AtomicBool::new(false);
static RECORDED: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// A `tracing` layer that counts every SQL statement sqlx executes in this process, with its
/// own filter on sqlx's statement events; add it to the subscriber beside the log output
/// (`registry().with(fmt_layer).with(baton_bench::statement_counter_layer())`). The benchmark
/// reports statements per operation only when this layer is installed.
pub fn statement_counter_layer<S>() -> impl Layer<S> + Send + Sync + 'static
where
    S: Subscriber + for<'a> LookupSpan<'a>,
{
    let filter = Targets::new()
        .with_target(SQLX_QUERY_TARGET, LevelFilter::TRACE)
        .with_target(tally::TARGET, LevelFilter::TRACE);
    StatementCounter.with_filter(filter)
}

struct StatementCounter;

impl<S> Layer<S> for StatementCounter
where
    S: Subscriber + for<'a> LookupSpan<'a>,
{
    fn on_event(&self, event: &Event<'_>, ctx: Context<'_, S>) {
        if !event.metadata().target().starts_with(SQLX_QUERY_TARGET) {
            return;
        }
        STATEMENTS.fetch_add(1, Ordering::Relaxed);
        // The store call the statement belongs to: the outermost tallied span around it.
        let call = ctx.event_scope(event).and_then(|scope| {
            scope
                .from_root()
                .find(|span| span.metadata().target() == tally::TARGET)
                .map(|span| span.name())
        });
        tally::note_statement(call);
        if RECORDING.load(Ordering::Relaxed) {
            let mut summary = Summary::default();
            event.record(&mut summary);
            recorded().push(summary.label());
        }
    }
}

/// Picks the statement out of a sqlx event: its four-word summary and, for longer statements,
/// the full text.
#[derive(Default)]
struct Summary {
    summary: String,
    statement: String,
}

impl Summary {
    /// The first words of the statement, comments left out.
    fn label(&self) -> String {
        let text = if self.statement.trim().is_empty() { &self.summary } else { &self.statement };
        let words: Vec<&str> = text
            .lines()
            .filter(|line| !line.trim_start().starts_with("--"))
            .flat_map(str::split_whitespace)
            .take(4)
            .collect();
        words.join(" ")
    }
}

impl Visit for Summary {
    fn record_str(&mut self, field: &Field, value: &str) {
        match field.name() {
            "summary" => value.clone_into(&mut self.summary),
            "db.statement" => value.clone_into(&mut self.statement),
            _ => {}
        }
    }

    fn record_debug(&mut self, _field: &Field, _value: &dyn std::fmt::Debug) {}
}

fn recorded() -> std::sync::MutexGuard<'static, Vec<String>> {
    RECORDED.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Statements counted so far in this process.
pub(crate) fn count() -> u64 {
    STATEMENTS.load(Ordering::Relaxed)
}

/// What the counter saw while a known sequence of statements ran.
#[derive(Debug, Clone)]
pub(crate) struct SelfCheck {
    /// The summaries of the statements counted, in order.
    pub(crate) counted: Vec<String>,
}

impl SelfCheck {
    /// Whether the counter is installed at all (it counted something).
    pub(crate) fn live(&self) -> bool {
        !self.counted.is_empty()
    }
}

/// Runs `known` (which should run a transaction with a known statement in it) and returns the
/// summaries of the statements the counter saw meanwhile, so the report can state what one
/// counted statement is on this backend.
pub(crate) async fn self_check<F, T>(known: F) -> anyhow::Result<(SelfCheck, T)>
where
    F: std::future::Future<Output = anyhow::Result<T>>,
{
    recorded().clear();
    RECORDING.store(true, Ordering::Relaxed);
    let outcome = known.await;
    RECORDING.store(false, Ordering::Relaxed);
    let counted = std::mem::take(&mut *recorded());
    Ok((SelfCheck { counted }, outcome?))
}
