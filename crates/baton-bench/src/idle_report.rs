//! The report of `baton bench idle`, as text.

use std::collections::BTreeSet;

use crate::IdleBenchArgs;
use crate::idle_nodes::{IdlePhase, IdleRun};
use crate::nodes::NodeReport;
use crate::report::{Table, verdict};
use crate::tally::OUTSIDE;
use crate::tally_report;
use crate::target::Target;

/// The most statements per second an idle node may issue.
const PER_NODE: f64 = 0.5;

/// What is run, where.
pub(crate) fn header(
    target: &Target,
    url: &str,
    args: &IdleBenchArgs,
    run: &str,
    others: usize,
) -> String {
    let mut out = format!(
        "baton bench idle on {} ({}), run {run}\n\
         {} idle node processes (`baton bench node --role idle`), each a Scheduler with the \
         default settings registering the same\n{} and then {} jobs on a yearly cron that does \
         not fire; {:?} of warm-up, then {:?} measured.\n",
        target.kind(),
        baton::redact(url),
        args.nodes,
        args.few,
        args.many,
        args.warmup,
        args.duration,
    );
    out.push_str(&format!("machine: {}\n", crate::machine::describe()));
    if others > 0 {
        out.push_str(&format!(
            "note: the store already holds {others} registered jobs; the scheduler leader reads \
             them all, so a fresh database gives cleaner figures.\n"
        ));
    }
    out
}

fn rate(count: u64, node: &NodeReport) -> f64 {
    count as f64 / node.window.as_secs_f64().max(f64::MIN_POSITIVE)
}

/// The whole report.
pub(crate) fn render(run: &IdleRun, args: &IdleBenchArgs) -> String {
    let mut summary =
        Table::new(&["jobs", "node", "role", "statements", "statements/s", "calls/s", "target"]);
    for phase in &run.phases {
        for (index, node) in phase.nodes.iter().enumerate() {
            let per_second = rate(node.tally.statements(), node);
            summary.row(vec![
                phase.jobs.to_string(),
                index.to_string(),
                role(phase, node).to_string(),
                node.tally.statements().to_string(),
                format!("{per_second:.2}"),
                format!("{:.2}", rate(node.tally.calls(), node)),
                format!("≤ {PER_NODE} {}", verdict(per_second <= PER_NODE)),
            ]);
        }
    }
    let mut out = format!(
        "Idle load per node ({:?} measured; jobs on the cron `{}`)\n",
        args.duration, run.expression
    );
    out.push_str(&summary.render());
    out.push_str(&same(run));
    for phase in &run.phases {
        out.push_str(&format!(
            "\nWith {} jobs: statements (calls) per store call and node; {} {} in the window\n",
            phase.jobs, phase.writes, run.writes_label
        ));
        out.push_str(&breakdown(phase));
    }
    out.push_str(&tally_report::statement_note(&run.check));
    out.push_str(&format!("machine at the end: {}\n", crate::machine::describe()));
    out
}

/// The leader, by the lease record (or by the work it did when the record is unclear).
fn role(phase: &IdlePhase, node: &NodeReport) -> &'static str {
    let leads = match &phase.leader {
        Some(holder) => *holder == node.holder,
        None => tally_report::leads(node),
    };
    if leads { "leader" } else { "follower" }
}

/// Whether the busiest node issues as much with many jobs as with few.
fn same(run: &IdleRun) -> String {
    let busiest = |phase: &IdlePhase| {
        phase.nodes.iter().map(|node| rate(node.tally.statements(), node)).fold(0.0, f64::max)
    };
    let (Some(few), Some(many)) = (run.phases.first(), run.phases.last()) else {
        return String::new();
    };
    let (a, b) = (busiest(few), busiest(many));
    let window = few.nodes.first().map_or(1.0, |node| node.window.as_secs_f64().max(1.0));
    // One statement over the window, or a tenth, whichever is larger, is noise.
    let slack = (1.0 / window).max(a * 0.1);
    format!(
        "busiest node: {a:.2} statements/s with {} jobs, {b:.2} with {} jobs: {}\n",
        few.jobs,
        many.jobs,
        if b <= a + slack { "the same ok" } else { "grows with the jobs: MISSED" }
    )
}

fn breakdown(phase: &IdlePhase) -> String {
    let calls: BTreeSet<&String> =
        phase.nodes.iter().flat_map(|node| node.tally.entries.keys()).collect();
    let mut header = vec!["store call".to_string()];
    for (index, node) in phase.nodes.iter().enumerate() {
        header.push(format!("node {index} ({})", role(phase, node)));
    }
    let header: Vec<&str> = header.iter().map(String::as_str).collect();
    let mut table = Table::new(&header);
    for call in calls {
        let mut row =
            vec![if call == OUTSIDE { "(outside store calls)".to_string() } else { call.clone() }];
        for node in &phase.nodes {
            let entry = node.tally.get(call);
            row.push(format!("{} ({})", entry.statements, entry.calls));
        }
        table.row(row);
    }
    let mut total = vec!["total".to_string()];
    let mut per_second = vec!["per second".to_string()];
    for node in &phase.nodes {
        total.push(format!("{} ({})", node.tally.statements(), node.tally.calls()));
        per_second.push(format!(
            "{:.2} ({:.2})",
            rate(node.tally.statements(), node),
            rate(node.tally.calls(), node)
        ));
    }
    table.row(total);
    table.row(per_second);
    table.render()
}
