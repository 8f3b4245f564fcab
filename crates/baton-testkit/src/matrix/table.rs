//! The matrix printed: a markdown table of stores by faults per workload, and the cells as JSON
//! lines.

use super::{Cell, Fault, Store, Verdict, Workload};

/// A markdown table per workload in `cells`, under its title, with a row per store and a
/// column per fault: `pass`, `FAIL` or `n/a`, with the passes counted over rounds.
pub fn markdown(cells: &[Cell]) -> String {
    let tables: Vec<String> = Workload::ALL
        .into_iter()
        .filter(|workload| cells.iter().any(|c| c.fault.workload() == *workload))
        .map(|workload| format!("{}\n\n{}", workload.title(), table(cells, workload)))
        .collect();
    tables.join("\n")
}

fn table(cells: &[Cell], workload: Workload) -> String {
    let faults: Vec<Fault> = Fault::ALL
        .into_iter()
        .filter(|fault| fault.workload() == workload && cells.iter().any(|c| c.fault == *fault))
        .collect();
    let stores: Vec<Store> =
        Store::ALL.into_iter().filter(|store| cells.iter().any(|c| c.store == *store)).collect();
    let mut table = format!(
        "| store | {} |\n|---|{}\n",
        faults.iter().map(|fault| fault.name()).collect::<Vec<_>>().join(" | "),
        "---|".repeat(faults.len())
    );
    for store in stores {
        let row: Vec<String> = faults.iter().map(|fault| summary(cells, store, *fault)).collect();
        table.push_str(&format!("| {} | {} |\n", store.name(), row.join(" | ")));
    }
    table
}

fn summary(cells: &[Cell], store: Store, fault: Fault) -> String {
    let ran: Vec<&Cell> = cells.iter().filter(|c| c.store == store && c.fault == fault).collect();
    if ran.iter().all(|c| matches!(c.verdict, Verdict::NotApplicable(_))) {
        return "n/a".to_string();
    }
    let passed = ran.iter().filter(|c| matches!(c.verdict, Verdict::Passed(_))).count();
    match passed == ran.len() {
        true => format!("pass {passed}/{}", ran.len()),
        false => format!("**FAIL** {passed}/{}", ran.len()),
    }
}

/// One JSON object per cell, a line each.
pub fn json(cells: &[Cell]) -> String {
    cells
        .iter()
        .map(|cell| {
            let fenced = cell.summary.fenced;
            let object = serde_json::json!({
                "store": cell.store.name(),
                "workload": format!("{:?}", cell.fault.workload()).to_lowercase(),
                "fault": cell.fault.name(),
                "verdict": cell.verdict.label(),
                "detail": cell.verdict.detail(),
                "seconds": (cell.seconds * 10.0).round() / 10.0,
                "writes": {
                    "invoked": cell.summary.invoked,
                    "ok": cell.summary.ok,
                    "failed": cell.summary.failed,
                    "unknown": cell.summary.unknown,
                    "ok_per_second": (cell.summary.ok_per_second * 10.0).round() / 10.0,
                },
                "ledger": {
                    "accepted": fenced.accepted,
                    "stale_refused": fenced.rejected,
                    "stale_accepted": fenced.stale_accepted,
                    "late": fenced.late,
                    "duplicated": fenced.duplicates,
                },
                "excerpt": cell.excerpt,
            });
            format!("{object}\n")
        })
        .collect()
}
