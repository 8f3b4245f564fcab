//! The checks of a history: its writes paired into operations, counted, and the terms the
//! nodes announced checked against each other.

use std::collections::HashMap;
use std::fmt;
use std::iter::Sum;
use std::ops::Add;
use std::time::Duration;

use super::{Record, trailing_token};

/// How an operation ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// The write was applied (`WROTE`, or `REDONE`: applied before by an earlier claim).
    Ok,
    /// The write was certainly not applied (`REJECTED` by the fence, `ABANDONED` by the
    /// writer's own check of its claim).
    Failed,
    /// The writer cannot tell (`ERROR`, `FAILED`: the store's answer was lost or was an error
    /// after the request left), or no outcome was ever printed (the process died or was frozen
    /// during the write, or the cell ended).
    Unknown,
}

impl Outcome {
    /// The outcome a line of `kind` reports, if it reports one.
    fn of(kind: &str) -> Option<Outcome> {
        match kind {
            "WROTE" | "REDONE" => Some(Outcome::Ok),
            "REJECTED" | "ABANDONED" => Some(Outcome::Failed),
            "ERROR" | "FAILED" => Some(Outcome::Unknown),
            _ => None,
        }
    }
}

/// One write to the store: its invocation and its outcome.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Operation {
    /// The process that wrote.
    pub process: String,
    /// What the `INVOKE` line named: the write's resource, item or step, and its token last.
    pub id: String,
    /// When it was invoked, from the cell's start.
    pub invoked: Duration,
    /// When its outcome was printed, if it was.
    pub completed: Option<Duration>,
    /// How it ended.
    pub outcome: Outcome,
    /// The index of its `INVOKE` line in the records it was paired from.
    pub invocation: usize,
}

impl Operation {
    /// The token the write was made under: the id's last word.
    pub fn token(&self) -> Option<u64> {
        trailing_token(&self.id)
    }

    /// Pairs each `INVOKE <id>` with the first later outcome line of the same process whose
    /// detail is the id, alone or followed by more words; an invocation left without one is
    /// [`Outcome::Unknown`].
    pub fn pair(records: &[Record]) -> Vec<Operation> {
        let mut operations: Vec<Operation> = Vec::new();
        let mut pending: HashMap<&str, Vec<usize>> = HashMap::new();
        for (index, record) in records.iter().enumerate() {
            if record.kind == "INVOKE" {
                pending.entry(&record.process).or_default().push(operations.len());
                operations.push(Operation {
                    process: record.process.clone(),
                    id: record.detail.clone(),
                    invoked: record.at,
                    completed: None,
                    outcome: Outcome::Unknown,
                    invocation: index,
                });
                continue;
            }
            let Some(outcome) = Outcome::of(&record.kind) else { continue };
            let Some(open) = pending.get_mut(record.process.as_str()) else { continue };
            let matches = |index: &usize| {
                let id = &operations[*index].id;
                record
                    .detail
                    .strip_prefix(id.as_str())
                    .is_some_and(|rest| rest.is_empty() || rest.starts_with(' '))
            };
            if let Some(position) = open.iter().position(matches) {
                let operation = &mut operations[open.remove(position)];
                operation.completed = Some(record.at);
                operation.outcome = outcome;
            }
        }
        operations
    }
}

/// What a ledger's checker found.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Fenced {
    /// Writes the fence accepted.
    pub accepted: u64,
    /// Stale writes the fence refused.
    pub rejected: u64,
    /// Stale writes the fence accepted (must be 0).
    pub stale_accepted: u64,
    /// Writes made after the writer's own deadline (must be 0).
    pub late: u64,
    /// Effects applied twice: an item committed more than once (must be 0).
    pub duplicates: u64,
}

impl Add for Fenced {
    type Output = Fenced;

    fn add(self, other: Fenced) -> Fenced {
        Fenced {
            accepted: self.accepted + other.accepted,
            rejected: self.rejected + other.rejected,
            stale_accepted: self.stale_accepted + other.stale_accepted,
            late: self.late + other.late,
            duplicates: self.duplicates + other.duplicates,
        }
    }
}

impl Sum for Fenced {
    fn sum<I: Iterator<Item = Fenced>>(iter: I) -> Fenced {
        iter.fold(Fenced::default(), Add::add)
    }
}

impl fmt::Display for Fenced {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} accepted, {} stale refused, {} stale accepted, {} late, {} duplicated",
            self.accepted, self.rejected, self.stale_accepted, self.late, self.duplicates
        )
    }
}

/// A history's figures and violations.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Summary {
    /// Writes invoked.
    pub invoked: usize,
    /// Writes applied.
    pub ok: usize,
    /// Writes certainly not applied.
    pub failed: usize,
    /// Writes whose outcome is unknown.
    pub unknown: usize,
    /// Writes applied per second, from the first invocation to the last outcome.
    pub ok_per_second: f64,
    /// Terms announced (`ACQUIRED`, `LEADING`) by a process under a token lower than one it
    /// announced before: `(process, token, the higher one before)` (must be empty).
    pub regressions: Vec<(String, u64, u64)>,
    /// Tokens announced as a new term by two processes (must be empty).
    pub reissued: Vec<u64>,
    /// What the ledgers' checkers found.
    pub fenced: Fenced,
}

impl Summary {
    /// The summary of `records`, with the ledgers' findings.
    pub fn of(records: &[Record], fenced: Fenced) -> Summary {
        let operations = Operation::pair(records);
        let count = |outcome| operations.iter().filter(|op| op.outcome == outcome).count();
        let first = operations.iter().map(|op| op.invoked).min();
        let last = operations.iter().filter_map(|op| op.completed).max();
        let ok = count(Outcome::Ok);
        let ok_per_second = match (first, last) {
            (Some(first), Some(last)) if last > first => ok as f64 / (last - first).as_secs_f64(),
            _ => 0.0,
        };
        let (regressions, reissued) = check_terms(records);
        Summary {
            invoked: operations.len(),
            ok,
            failed: count(Outcome::Failed),
            unknown: count(Outcome::Unknown),
            ok_per_second,
            regressions,
            reissued,
            fenced,
        }
    }

    /// What the history shows that must never happen, one line each.
    pub fn violations(&self) -> Vec<String> {
        let mut found = Vec::new();
        for (process, token, before) in &self.regressions {
            found.push(format!("{process} announced term {token} after term {before}"));
        }
        for token in &self.reissued {
            found.push(format!("term {token} was announced by two processes"));
        }
        let fenced = self.fenced;
        let counted = [
            (fenced.stale_accepted, "stale writes accepted"),
            (fenced.late, "writes made after their writer's deadline"),
            (fenced.duplicates, "effects applied twice"),
        ];
        for (count, what) in counted {
            if count > 0 {
                found.push(format!("{count} {what}"));
            }
        }
        found
    }
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} writes: {} ok, {} failed, {} unknown ({:.1} ok/s); ledger: {}",
            self.invoked, self.ok, self.failed, self.unknown, self.ok_per_second, self.fenced
        )
    }
}

/// The tokens the processes announced as new terms, in the order seen: those lower than one
/// their process announced before, and those two processes announced. A process is known by
/// its name: a node started again under the same name may see its old term still in the
/// store and announce it again.
fn check_terms(records: &[Record]) -> (Vec<(String, u64, u64)>, Vec<u64>) {
    let mut highest: HashMap<&str, u64> = HashMap::new();
    let mut announcer: HashMap<u64, &str> = HashMap::new();
    let (mut regressions, mut reissued) = (Vec::new(), Vec::new());
    let announced = records.iter().filter(|r| r.kind == "ACQUIRED" || r.kind == "LEADING");
    for record in announced {
        let Some(token) = trailing_token(&record.detail) else { continue };
        let before = highest.entry(&record.process).or_insert(token);
        if token < *before {
            regressions.push((record.process.clone(), token, *before));
        }
        *before = (*before).max(token);
        let first = *announcer.entry(token).or_insert(&record.process);
        if first != record.process && !reissued.contains(&token) {
            reissued.push(token);
        }
    }
    (regressions, reissued)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::{Fenced, Operation, Outcome, Record, Summary};

    fn history(lines: &[(u64, &str, &str)]) -> Vec<Record> {
        lines
            .iter()
            .map(|(ms, process, line)| {
                let (kind, detail) = line.split_once(' ').unwrap_or((line, ""));
                Record {
                    at: Duration::from_millis(*ms),
                    process: process.to_string(),
                    kind: kind.to_string(),
                    detail: detail.to_string(),
                }
            })
            .collect()
    }

    #[test]
    fn writes_are_paired_with_their_own_outcome_and_unanswered_ones_are_unknown() {
        let records = history(&[
            (0, "a", "INVOKE p1 1 7"),
            (1, "a", "INVOKE p2 1 7"),
            (2, "b", "WROTE p1 1 7"),
            (3, "a", "WROTE p2 1 7"),
            (4, "a", "WROTE p1 1 7"),
            (5, "a", "INVOKE 17"),
            (6, "a", "REJECTED 17"),
            (7, "a", "INVOKE 1"),
            (8, "a", "ERROR 1 connection reset"),
            (9, "a", "INVOKE 2"),
        ]);
        let operations = Operation::pair(&records);
        let outcomes: Vec<_> =
            operations.iter().map(|op| (op.id.as_str(), op.outcome, op.completed)).collect();
        let at = |ms| Some(Duration::from_millis(ms));
        assert_eq!(
            outcomes,
            [
                ("p1 1 7", Outcome::Ok, at(4)),
                ("p2 1 7", Outcome::Ok, at(3)),
                ("17", Outcome::Failed, at(6)),
                ("1", Outcome::Unknown, at(8)),
                ("2", Outcome::Unknown, None),
            ]
        );
        assert_eq!(operations[2].token(), Some(17));
    }

    #[test]
    fn a_term_announced_twice_or_below_an_earlier_one_is_a_violation() {
        let clean = history(&[
            (0, "a", "ACQUIRED 3"),
            (1, "b", "LEADING 4"),
            (2, "a", "ACQUIRED 5"),
            (3, "a", "LEADING 5"),
        ]);
        assert_eq!(Summary::of(&clean, Fenced::default()).violations(), Vec::<String>::new());
        let reissued = history(&[(0, "a", "ACQUIRED 3"), (1, "b", "ACQUIRED 3")]);
        let regressed = history(&[(0, "a", "ACQUIRED 5"), (1, "a", "ACQUIRED 4")]);
        assert_eq!(
            Summary::of(&reissued, Fenced::default()).violations(),
            ["term 3 was announced by two processes"]
        );
        assert_eq!(
            Summary::of(&regressed, Fenced::default()).violations(),
            ["a announced term 4 after term 5"]
        );
    }

    #[test]
    fn the_ledgers_findings_that_must_be_zero_are_violations() {
        let fenced = Fenced { accepted: 9, rejected: 2, stale_accepted: 1, late: 0, duplicates: 3 };
        assert_eq!(
            Summary::of(&[], fenced).violations(),
            ["1 stale writes accepted", "3 effects applied twice"]
        );
    }

    #[test]
    fn the_rate_counts_applied_writes_from_the_first_invocation_to_the_last_outcome() {
        let records = history(&[
            (1000, "a", "INVOKE 1"),
            (1500, "a", "WROTE 1"),
            (2000, "a", "INVOKE 1"),
            (3000, "a", "WROTE 1"),
        ]);
        let summary = Summary::of(&records, Fenced::default());
        assert_eq!((summary.invoked, summary.ok), (2, 2));
        assert!((summary.ok_per_second - 1.0).abs() < 1e-9, "{summary:?}");
    }
}
