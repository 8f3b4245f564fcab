//! The report of `baton bench executions`, as text.

use std::time::Duration;

use crate::ExecutionsBenchArgs;
use crate::args::NodeRole;
use crate::executions::{Drained, ExecRun};
use crate::lease::CLIENTS;
use crate::report::{self, Table, per, ratio, verdict};
use crate::tally::Tally;
use crate::tally_report;
use crate::target::Target;
use crate::timed::OpKind;

/// Slices the drain is cut into; the rate is their median.
const SLICES: u32 = 10;

/// What is run, where.
pub(crate) fn header(target: &Target, url: &str, args: &ExecutionsBenchArgs, run: &str) -> String {
    format!(
        "baton bench executions on {} ({}), run {run}\n\
         Each mode: {} due executions recorded up front (record_fires in batches of 1000 over \
         {} jobs with overlap=allow), then drained by {}\nworker processes (`baton bench node`) \
         with a trivial handler. The floor (a single-row UPDATE committed on its own, on {CLIENTS} \
         connections)\nis measured for {:?} before each mode and once at the end.\nmachine: {}\n",
        target.kind(),
        baton::redact(url),
        args.executions,
        args.jobs,
        args.nodes,
        args.floor_duration,
        crate::machine::describe(),
    )
}

/// What a mode is, and its target as a multiple of the floor.
fn describe(role: NodeRole, batch: u32, postgres: bool) -> (String, Option<f64>) {
    let target = |ratio| postgres.then_some(ratio);
    match role {
        NodeRole::ExecDefault => (
            "(a) default: Scheduler worker (its default claim_batch and max_concurrent)".into(),
            target(1.0),
        ),
        _ => (format!("(b) batched: claim {batch} + complete_batch"), target(3.0)),
    }
}

/// The median and mean completion rates of a drain.
pub(crate) fn rates(drained: &Drained) -> (f64, f64) {
    let Some((last, _)) = drained.completed.last() else { return (0.0, 0.0) };
    let length = Duration::from_millis(last + 1);
    let done = drained
        .completed
        .iter()
        .flat_map(|(ms, count)| std::iter::repeat_n(Duration::from_millis(*ms), *count as usize));
    let median = report::median(report::slice_rates(done, length, SLICES));
    let total: u64 = drained.completed.iter().map(|(_, count)| count).sum();
    (median, total as f64 / length.as_secs_f64())
}

/// Executions the workers completed.
fn completed(drained: &Drained) -> u64 {
    drained.nodes.iter().map(|node| node.done).sum()
}

fn merged(drained: &Drained) -> Tally {
    let mut tally = Tally::default();
    for node in &drained.nodes {
        tally.merge(&node.tally);
    }
    tally
}

/// The whole report.
pub(crate) fn render(run: &ExecRun, args: &ExecutionsBenchArgs, target: &Target) -> String {
    let postgres = target.is_postgres();
    let counting = run.check.live();
    let floor_rate = run.floor.samples.rate(&[OpKind::Update]);
    let floor_ops = run.floor.samples.count(&[OpKind::Update]);
    let mut table = Table::new(&[
        "run",
        "executions",
        "drain",
        "exec/s",
        "mean/s",
        "vs floor",
        "stmts/exec",
        "commits/exec",
        "target",
    ]);
    table.row(vec![
        format!("floor: UPDATE + commit, {CLIENTS} connections"),
        floor_ops.to_string(),
        String::new(),
        report::rate(floor_rate),
        String::new(),
        "1.00".into(),
        report::statements_per(counting, run.floor.statements, floor_ops),
        per(Some(run.floor.commits), floor_ops),
    ]);
    for drained in &run.modes {
        let (label, goal) = describe(drained.role, args.batch, postgres);
        let (median, mean) = rates(drained);
        let versus = median / floor_rate.max(f64::MIN_POSITIVE);
        let tally = merged(drained);
        let count = completed(drained);
        let executions = if drained.complete {
            count.to_string()
        } else {
            format!("{count} of {}", drained.count)
        };
        table.row(vec![
            label,
            executions,
            report::duration(drained.drain),
            report::rate(median),
            report::rate(mean),
            ratio(versus),
            report::statements_per(counting, tally.statements(), count),
            per(Some(drained.commits), count),
            goal.map_or(String::new(), |g| format!("≥ {g:.0}× {}", verdict(versus >= g))),
        ]);
    }
    let mut out = format!("Draining executions against the floor ({})\n", target.kind());
    out.push_str(&table.render());
    out.push_str(&format!(
        "exec/s is the median rate over {SLICES} equal slices of the drain (start to last \
         completion), mean/s the executions over that time; per execution\n(completed), \
         statements are all the workers' statements (claims, completions, heartbeats, lease renewals, polls), commits the \
         store's own count from the start to the nodes' exit.\n"
    ));
    if !postgres {
        out.push_str(
            "The targets are set for PostgreSQL; on SQLite the figures are printed without.\n",
        );
    }
    out.push('\n');
    out.push_str(&record(run));
    for drained in &run.modes {
        let (label, _) = describe(drained.role, args.batch, postgres);
        out.push_str(&format!("\n{label}: store calls of all workers, per execution\n"));
        out.push_str(&tally_report::calls(&merged(drained), completed(drained), "per exec"));
        out.push_str(&tally_report::nodes(&drained.nodes, |node| {
            format!("{} executions completed", node.done)
        }));
    }
    out.push_str(&tally_report::statement_note(&run.check));
    out.push_str(&format!("machine at the end: {}\n", crate::machine::describe()));
    out
}

fn record(run: &ExecRun) -> String {
    let mut table = Table::new(&[
        "record check",
        "records",
        "succeeded",
        "distinct tokens",
        "incomplete",
        "retries",
        "verdict",
    ]);
    for drained in &run.modes {
        let v = &drained.verified;
        let mode = drained.role.exec_mode().unwrap_or("?");
        let kept = v.holds(drained.count, completed(drained));
        table.row(vec![
            mode.to_string(),
            v.records.to_string(),
            v.succeeded.to_string(),
            v.distinct_tokens.to_string(),
            v.incomplete.to_string(),
            v.retries.to_string(),
            format!(
                "{} of {} succeeded {}",
                v.succeeded,
                drained.count,
                verdict(kept && drained.complete)
            ),
        ]);
    }
    let mut out = String::from(
        "Every execution keeps its record: read back through the JobStore after each drain\n",
    );
    out.push_str(&table.render());
    out.push_str(
        "incomplete: a succeeded record without its token, node, start or finish time; \
         retries: records of a second attempt.\n",
    );
    for drained in run.modes.iter().filter(|d| !d.complete) {
        out.push_str(&format!(
            "{}: the drain was stopped at --limit {}; the executions left were then settled as \
             cancelled (on PostgreSQL).\n",
            drained.role.exec_mode().unwrap_or("?"),
            report::duration(drained.drain)
        ));
    }
    out
}
