//! Percentiles, rates and the plain-text tables the report is printed as.

use std::time::Duration;

/// Latency percentiles of a set of operations.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Latency {
    /// Median.
    pub(crate) p50: Duration,
    /// 99th percentile.
    pub(crate) p99: Duration,
    /// Slowest.
    pub(crate) max: Duration,
}

impl Latency {
    /// Percentiles of `latencies`; `None` when there are none.
    pub(crate) fn of(mut latencies: Vec<Duration>) -> Option<Latency> {
        if latencies.is_empty() {
            return None;
        }
        latencies.sort_unstable();
        Some(Latency {
            p50: percentile(&latencies, 0.50),
            p99: percentile(&latencies, 0.99),
            max: latencies[latencies.len() - 1],
        })
    }
}

/// The nearest-rank percentile `q` (0 < q ≤ 1) of sorted, non-empty values.
pub(crate) fn percentile(sorted: &[Duration], q: f64) -> Duration {
    let rank = (q * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// The rates (per second) in each of `slices` equal slices of a window of `length`, from the
/// completion times of its operations; completions after the window are left out.
pub(crate) fn slice_rates(
    done_at: impl Iterator<Item = Duration>,
    length: Duration,
    slices: u32,
) -> Vec<f64> {
    if length.is_zero() || slices == 0 {
        return Vec::new();
    }
    let slice = length / slices;
    let mut counts = vec![0u64; slices as usize];
    for at in done_at.filter(|at| *at < length) {
        let index = (at.as_nanos() / slice.as_nanos().max(1)) as usize;
        let last = counts.len() - 1;
        counts[index.min(last)] += 1;
    }
    counts.into_iter().map(|count| count as f64 / slice.as_secs_f64()).collect()
}

/// The median of `values`, or 0 when there are none.
pub(crate) fn median(mut values: Vec<f64>) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    values.sort_unstable_by(f64::total_cmp);
    let mid = values.len() / 2;
    if values.len().is_multiple_of(2) { (values[mid - 1] + values[mid]) / 2.0 } else { values[mid] }
}

/// A duration in the unit that suits it: "0.84 ms", "12.3 ms", "9.87 s".
pub(crate) fn duration(value: Duration) -> String {
    let ms = value.as_secs_f64() * 1000.0;
    if ms < 10.0 {
        format!("{ms:.2} ms")
    } else if ms < 1000.0 {
        format!("{ms:.1} ms")
    } else {
        format!("{:.2} s", ms / 1000.0)
    }
}

/// A rate with no more digits than it deserves.
pub(crate) fn rate(value: f64) -> String {
    if value >= 100.0 { format!("{value:.0}") } else { format!("{value:.1}") }
}

/// A ratio or a per-operation figure, to two decimals.
pub(crate) fn ratio(value: f64) -> String {
    format!("{value:.2}")
}

/// `part / whole`, or "n/a" when nothing was counted.
pub(crate) fn per(part: Option<u64>, whole: u64) -> String {
    match part {
        Some(part) if whole > 0 => ratio(part as f64 / whole as f64),
        _ => "n/a".to_string(),
    }
}

/// Statements per operation, or "n/a" when the statement counter is not installed.
pub(crate) fn statements_per(counting: bool, statements: u64, ops: u64) -> String {
    per(counting.then_some(statements), ops)
}

/// "ok" or "MISSED", for a figure with a target.
pub(crate) fn verdict(met: bool) -> &'static str {
    if met { "ok" } else { "MISSED" }
}

/// A plain-text table: the first column left-aligned, the others right-aligned.
#[derive(Debug, Default)]
pub(crate) struct Table {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Table {
    /// A table with these column headings.
    pub(crate) fn new(header: &[&str]) -> Self {
        Table { header: header.iter().map(|h| h.to_string()).collect(), rows: Vec::new() }
    }

    /// Adds a row; missing cells are left blank.
    pub(crate) fn row(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
    }

    /// The table as text, one line per row, under a rule.
    pub(crate) fn render(&self) -> String {
        let columns = self.header.len();
        let mut widths: Vec<usize> = self.header.iter().map(|h| h.chars().count()).collect();
        for row in &self.rows {
            for (i, cell) in row.iter().enumerate().take(columns) {
                widths[i] = widths[i].max(cell.chars().count());
            }
        }
        let mut out = String::new();
        let line = |cells: &[String], out: &mut String| {
            let mut text = String::new();
            for (i, width) in widths.iter().enumerate() {
                let cell = cells.get(i).map_or("", String::as_str);
                if i == 0 {
                    text.push_str(&format!("{cell:<width$}"));
                } else {
                    text.push_str(&format!("  {cell:>width$}"));
                }
            }
            out.push_str(text.trim_end());
            out.push('\n');
        };
        line(&self.header, &mut out);
        let total: usize = widths.iter().sum::<usize>() + 2 * (columns.saturating_sub(1));
        out.push_str(&"-".repeat(total));
        out.push('\n');
        for row in &self.rows {
            line(row, &mut out);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(values: &[u64]) -> Vec<Duration> {
        values.iter().map(|v| Duration::from_millis(*v)).collect()
    }

    #[test]
    fn nearest_rank_percentiles() {
        let sorted = ms(&(1..=100).collect::<Vec<_>>());
        assert_eq!(percentile(&sorted, 0.50), Duration::from_millis(50));
        assert_eq!(percentile(&sorted, 0.99), Duration::from_millis(99));
        assert_eq!(percentile(&ms(&[7]), 0.99), Duration::from_millis(7));
        let latency = Latency::of(ms(&[5, 1, 3])).unwrap();
        assert_eq!(
            (latency.p50, latency.max),
            (Duration::from_millis(3), Duration::from_millis(5))
        );
        assert!(Latency::of(Vec::new()).is_none());
    }

    #[test]
    fn median_rate_ignores_a_slow_slice_and_late_completions() {
        // 10 slices of 100 ms: 10 completions in each but one, which has none.
        let mut done = Vec::new();
        for slice in 0..10u64 {
            if slice != 3 {
                done.extend((0..10).map(|i| Duration::from_millis(slice * 100 + i * 10)));
            }
        }
        done.push(Duration::from_millis(1500));
        let rates = slice_rates(done.into_iter(), Duration::from_secs(1), 10);
        assert_eq!(rates.len(), 10);
        assert!((median(rates) - 100.0).abs() < 1e-9);
        assert_eq!(median(vec![3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(Vec::new()), 0.0);
    }

    #[test]
    fn tables_align_columns() {
        let mut table = Table::new(&["what", "n"]);
        table.row(vec!["a".into(), "1".into()]);
        table.row(vec!["longer".into(), "100".into()]);
        assert_eq!(table.render(), "what      n\n-----------\na         1\nlonger  100\n");
    }
}
