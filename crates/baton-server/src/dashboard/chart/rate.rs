//! The overview's picture: how many executions were scheduled in each minute of the last
//! hour, stacked by outcome.

use baton::StoreTime;
use baton::core::{Execution, ExecutionStatus};

use super::axes::{outcomes, time_axis, value_axis};
use super::scale::{Linear, round_top, time_label};
use super::svg::{Anchor, Area, Svg};

/// Minutes shown, the current one last.
const MINUTES: i64 = 60;
const MINUTE: i64 = 60_000;
/// Where the bars stand: below the legend, right of the counts, above the times.
const PLOT: Area = Area { x: 40.0, y: 24.0, width: 704.0, height: 110.0 };

/// The first instant the picture covers: the start of the minute 59 minutes before `now`'s.
pub(crate) fn hour_start(now: StoreTime) -> StoreTime {
    StoreTime::from_millis((now.as_millis().div_euclid(MINUTE) - (MINUTES - 1)) * MINUTE)
}

/// The picture of `executions` scheduled from [`hour_start`] to `now`, by minute; others
/// are left out. Minutes before `counted_from`, when given, are marked as not wholly counted.
pub(crate) fn per_minute(
    executions: &[Execution],
    counted_from: Option<StoreTime>,
    now: StoreTime,
) -> String {
    let start = hour_start(now);
    let mut counts = vec![[0u32; ExecutionStatus::ALL.len()]; MINUTES as usize];
    for e in executions.iter().filter(|e| e.scheduled_at >= start && e.scheduled_at <= now) {
        let minute = ((e.scheduled_at.as_millis() - start.as_millis()) / MINUTE) as usize;
        let kind = ExecutionStatus::ALL.iter().position(|s| *s == e.status).unwrap_or(0);
        counts[minute][kind] += 1;
    }
    let totals: Vec<u32> = counts.iter().map(|minute| minute.iter().sum()).collect();
    let label = format!("executions per minute since {}", time_label(start, MINUTE));
    let mut svg = Svg::new(PLOT.x + PLOT.width + 16.0, PLOT.y + PLOT.height + 24.0, "rate", label);
    let count = |status| {
        let kind = ExecutionStatus::ALL.iter().position(|s| *s == status).unwrap_or(0);
        counts.iter().map(|minute| minute[kind] as usize).sum()
    };
    outcomes(&mut svg, (PLOT.x, 2.0), "bar", count);
    let end = StoreTime::from_millis(start.as_millis() + MINUTES * MINUTE);
    let x = Linear::time(start, end, (PLOT.x, PLOT.x + PLOT.width));
    let top = round_top(f64::from(totals.iter().copied().max().unwrap_or(0)), 2.0, 2);
    let y = Linear::new((0.0, top), (PLOT.y + PLOT.height, PLOT.y));
    let slot = PLOT.width / MINUTES as f64;
    for (minute, kinds) in counts.iter().enumerate() {
        let from = StoreTime::from_millis(start.as_millis() + minute as i64 * MINUTE);
        let left = x.at_time(from) + 0.5;
        if counted_from.is_some_and(|counted| from < counted) {
            let area = Area { x: left, width: slot - 1.0, ..PLOT };
            let title = format!(
                "{}: not every execution of this minute was read",
                time_label(from, MINUTE)
            );
            svg.rect(area, "uncounted", None, &title);
        }
        let mut below = 0u32;
        for (kind, count) in kinds.iter().enumerate().filter(|(_, count)| **count > 0) {
            let status = ExecutionStatus::ALL[kind];
            let (low, high) = (y.at(f64::from(below)), y.at(f64::from(below + count)));
            let area = Area { x: left, y: high, width: slot - 1.0, height: low - high };
            let title = format!("{}: {count} {status}", time_label(from, MINUTE));
            svg.rect(area, &format!("bar {status}"), None, &title);
            below += count;
        }
    }
    value_axis(&mut svg, &y, top, (PLOT.x, PLOT.x + PLOT.width), |count| format!("{count}"));
    if totals.iter().all(|total| *total == 0) {
        let middle = (PLOT.x + PLOT.width / 2.0, PLOT.y + PLOT.height / 2.0);
        svg.text(middle, Anchor::Middle, "empty", "No execution was scheduled in the last hour");
    }
    time_axis(&mut svg, &x, (start, end), PLOT.y + PLOT.height, PLOT.width);
    svg.finish()
}

#[cfg(test)]
mod tests {
    use baton::core::ExecutionStatus::{Failed, Running, Succeeded};

    use super::*;
    use crate::dashboard::chart::sample::execution;

    /// 10:30:20 on a day, in milliseconds.
    const NOW: i64 = 1_767_263_420_000;

    fn now() -> StoreTime {
        StoreTime::from_millis(NOW)
    }

    #[test]
    fn the_hour_starts_59_minutes_before_the_current_minute() {
        assert_eq!(hour_start(now()).to_string(), "2026-01-01T09:31:00.000Z");
    }

    #[test]
    fn an_empty_hour_says_so() {
        let picture = per_minute(&[], None, now());
        assert!(picture.contains("No execution was scheduled in the last hour"), "{picture}");
        assert!(!picture.contains("class=\"bar"), "{picture}");
    }

    #[test]
    fn executions_are_counted_by_minute_and_stacked_by_outcome() {
        let start = hour_start(now()).as_millis();
        let executions = [
            execution(1, Succeeded, start + 1_000, None, None),
            execution(2, Succeeded, start + 59_000, None, None),
            execution(3, Failed, start + 30_000, None, None),
            execution(4, Running, NOW, None, None),
            execution(5, Succeeded, start - 1, None, None),
            execution(6, Succeeded, NOW + 1, None, None),
        ];
        let picture = per_minute(&executions, None, now());
        assert!(picture.contains("<title>09:31: 2 succeeded</title>"), "{picture}");
        assert!(picture.contains("<title>09:31: 1 failed</title>"), "{picture}");
        assert!(picture.contains("<title>10:30: 1 running</title>"), "{picture}");
        assert_eq!(picture.matches("class=\"bar ").count(), 3 + 3, "3 bars and 3 swatches");
        assert!(picture.contains(">succeeded 2</text>"), "outside the hour left out: {picture}");
        // The first minute holds 3 on an axis to 4: its succeeded part is half the plot.
        let half = format!(
            r#"y="{}" width="{}" height="{}" class="bar succeeded""#,
            PLOT.y + PLOT.height / 2.0,
            crate::dashboard::chart::svg::num(PLOT.width / 60.0 - 1.0),
            PLOT.height / 2.0
        );
        assert!(picture.contains(&half), "{half} in {picture}");
    }

    #[test]
    fn minutes_not_wholly_read_are_marked() {
        let counted_from = StoreTime::from_millis(hour_start(now()).as_millis() + 2 * MINUTE + 1);
        let picture = per_minute(&[], Some(counted_from), now());
        assert_eq!(picture.matches("class=\"uncounted\"").count(), 3, "{picture}");
        assert!(picture.contains("09:33: not every execution of this minute was read"));
    }
}
