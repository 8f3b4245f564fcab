//! The end of a history as a red cell prints it: one row per line, a process's run of lines of
//! the same kind and token folded into one, and an invocation shown only when no outcome
//! followed it.

use std::collections::{HashMap, HashSet};
use std::fmt::Write;
use std::time::Duration;

use super::check::Operation;
use super::{History, Record};

/// Consecutive lines folded into one row.
struct Row<'a> {
    first: &'a Record,
    last: Duration,
    count: usize,
}

impl History {
    /// The last `rows` rows of the history, time from the cell's start, with the seed if the
    /// cell made random choices.
    pub fn excerpt(&self, rows: usize) -> String {
        let records = self.records();
        let answered: HashSet<usize> = Operation::pair(&records)
            .iter()
            .filter(|op| op.completed.is_some())
            .map(|op| op.invocation)
            .collect();
        let shown = records.iter().enumerate().filter(|(i, _)| !answered.contains(i));
        let shown = shown.map(|(_, record)| record);
        let folded = fold(shown);
        let skipped = folded.len().saturating_sub(rows);
        let mut text = match self.seed() {
            Some(seed) => format!("seed {seed}; "),
            None => String::new(),
        };
        let _ = writeln!(
            text,
            "history: the last {} of {} rows (seconds from the cell's start; ×N folds N lines):",
            folded.len() - skipped,
            folded.len()
        );
        for row in &folded[skipped..] {
            let record = row.first;
            let _ = write!(
                text,
                "{:>9.3}  {:<8} {} {}",
                record.at.as_secs_f64(),
                record.process,
                record.kind,
                record.detail
            );
            if record.kind == "INVOKE" {
                text.push_str("  (no outcome)");
            }
            if row.count > 1 {
                let _ = write!(text, "  ×{} until {:.3}", row.count, row.last.as_secs_f64());
            }
            text.push('\n');
        }
        text
    }
}

/// Folds each record into its process's last row when that row has the same kind and last
/// word and only other processes' last rows came after it: runs of writes stay one row each
/// while two processes interleave them.
fn fold<'a>(records: impl Iterator<Item = &'a Record>) -> Vec<Row<'a>> {
    let mut rows: Vec<Row<'a>> = Vec::new();
    let mut last_row: HashMap<&'a str, usize> = HashMap::new();
    let last_word = |r: &Record| r.detail.split_whitespace().last().map(str::to_string);
    for record in records {
        let foldable = last_row.get(record.process.as_str()).copied().filter(|&index| {
            let row = &rows[index];
            row.first.kind == record.kind
                && last_word(row.first) == last_word(record)
                && (index + 1..rows.len())
                    .all(|later| last_row.get(rows[later].first.process.as_str()) == Some(&later))
        });
        match foldable {
            Some(index) => {
                rows[index].count += 1;
                rows[index].last = record.at;
            }
            None => {
                last_row.insert(&record.process, rows.len());
                rows.push(Row { first: record, last: record.at, count: 1 });
            }
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    use std::time::Instant;

    use super::History;

    #[test]
    fn the_excerpt_folds_repeated_writes_and_shows_writes_left_without_an_outcome() {
        let history = History::new();
        let lines = [
            ("a", "ACQUIRED 4"),
            ("a", "INVOKE 4"),
            ("a", "WROTE 4"),
            ("c", "WROTE p1 3"),
            ("a", "INVOKE 4"),
            ("a", "WROTE 4"),
            ("c", "WROTE p2 3"),
            ("nemesis", "SIGSTOP a"),
            ("b", "ACQUIRED 5"),
            ("a", "INVOKE 4"),
        ];
        for (process, line) in lines {
            let (kind, detail) = line.split_once(' ').expect("two words");
            history.push(process, kind, detail, Instant::now());
        }
        let excerpt = history.excerpt(3);
        let rows: Vec<&str> = excerpt.lines().collect();
        assert_eq!(rows.len(), 4, "{excerpt}");
        assert!(rows[0].contains("the last 3 of 6 rows"), "{excerpt}");
        assert!(rows[1].contains("nemesis  SIGSTOP a"), "{excerpt}");
        assert!(rows[2].contains("b        ACQUIRED 5"), "{excerpt}");
        assert!(rows[3].contains("a        INVOKE 4  (no outcome)"), "{excerpt}");
        let all = history.excerpt(10);
        assert!(all.contains("a        WROTE 4  ×2 until"), "{all}");
        assert!(all.contains("c        WROTE p1 3  ×2 until"), "{all}");
        assert!(!all.contains("INVOKE 4\n"), "answered invocations are not shown: {all}");
    }
}
