//! Tables of the store calls the nodes made, shared by the scheduler scenarios' reports.

use crate::nodes::NodeReport;
use crate::report::{self, Table};
use crate::statements::SelfCheck;
use crate::tally::{OUTSIDE, Tally};

/// One row per kind of call: calls, statements, what they carried, time spent, and statements
/// per `per` of `whole`.
pub(crate) fn calls(tally: &Tally, whole: u64, per: &str) -> String {
    let stmts_per = format!("stmts {per}");
    let calls_per = format!("calls {per}");
    let mut table = Table::new(&[
        "store call",
        "calls",
        "statements",
        "items",
        "errors",
        "mean time",
        &calls_per,
        &stmts_per,
    ]);
    let whole = whole.max(1) as f64;
    let mut rows: Vec<_> = tally.entries.iter().collect();
    rows.sort_by(|a, b| b.1.statements.cmp(&a.1.statements).then(a.0.cmp(b.0)));
    for (call, entry) in rows {
        let mean = if entry.calls > 0 {
            report::duration(entry.busy / u32::try_from(entry.calls).unwrap_or(u32::MAX))
        } else {
            "-".to_string()
        };
        let label = if call == OUTSIDE { "(outside store calls)" } else { call.as_str() };
        table.row(vec![
            label.to_string(),
            entry.calls.to_string(),
            entry.statements.to_string(),
            entry.items.to_string(),
            entry.errors.to_string(),
            mean,
            format!("{:.4}", entry.calls as f64 / whole),
            format!("{:.4}", entry.statements as f64 / whole),
        ]);
    }
    table.row(vec![
        "total".into(),
        tally.calls().to_string(),
        tally.statements().to_string(),
        String::new(),
        String::new(),
        String::new(),
        format!("{:.4}", tally.calls() as f64 / whole),
        format!("{:.4}", tally.statements() as f64 / whole),
    ]);
    table.render()
}

/// One line per node: its id, whether it led, its statements, and `more`.
pub(crate) fn nodes(nodes: &[NodeReport], more: impl Fn(&NodeReport) -> String) -> String {
    let mut out = String::new();
    for (index, node) in nodes.iter().enumerate() {
        out.push_str(&format!(
            "node {index} ({}): {}, {} store calls, {} statements in {}, {}\n",
            node.holder,
            if leads(node) { "leader" } else { "follower" },
            node.tally.calls(),
            node.tally.statements(),
            report::duration(node.window),
            more(node),
        ));
    }
    out
}

/// Whether the node did the scheduler leader's work in its window.
pub(crate) fn leads(node: &NodeReport) -> bool {
    ["record_fires", "job_list", "job_last_fires", "rescue"]
        .iter()
        .any(|call| node.tally.get(call).calls > 0)
}

/// What a counted statement is, from the self-check.
pub(crate) fn statement_note(check: &SelfCheck) -> String {
    if !check.live() {
        return "statements: n/a (the statement counter layer is not installed)\n".to_string();
    }
    let counted = |word: &str| check.counted.iter().any(|s| s.eq_ignore_ascii_case(word));
    let yes_no = |word: &str| if counted(word) { "counted" } else { "not counted" };
    format!(
        "statements: sqlx's statement events in each node, attributed to the store call they ran \
         in; a transaction's BEGIN is {}, COMMIT is {}.\n",
        yes_no("BEGIN"),
        yes_no("COMMIT")
    )
}
