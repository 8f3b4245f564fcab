//! A job's recent executions over time: how late each started after its scheduled instant
//! and how long it ran, a dot each, coloured by outcome.

use baton::StoreTime;
use baton::core::{Execution, ExecutionStatus};

use super::axes::{outcomes, time_axis, value_axis};
use super::scale::{Linear, round_top, seconds_label};
use super::svg::{Anchor, Area, Svg};
use crate::dashboard::format::{duration, instant};

const WIDTH: f64 = 760.0;
const LEFT: f64 = 64.0;
const RIGHT: f64 = 16.0;
/// The height of each of the two plots.
const PLOT: f64 = 90.0;
/// The top of the lag plot and of the duration plot.
const LAG_TOP: f64 = 40.0;
const TOOK_TOP: f64 = LAG_TOP + PLOT + 44.0;
/// The smallest top of a plot's axis, in seconds.
const FLOOR: f64 = 0.01;

/// What the picture shows of one execution.
struct Dot {
    at: StoreTime,
    status: ExecutionStatus,
    /// Seconds from its scheduled instant to its start, when it started.
    lag: Option<f64>,
    /// Seconds it ran, or has run so far.
    took: Option<f64>,
    title: String,
}

impl Dot {
    fn new(e: &Execution, now: StoreTime) -> Self {
        let seconds = |from: StoreTime, to: StoreTime| to.saturating_since(from).as_secs_f64();
        let lag = e.started_at.map(|started| seconds(e.scheduled_at, started));
        let took = e.started_at.map(|started| seconds(started, e.finished_at.unwrap_or(now)));
        let mut title = format!("#{} {}, scheduled {}", e.id, e.status, instant(e.scheduled_at));
        match (e.started_at, took) {
            (Some(started), Some(took)) => {
                let so_far = if e.finished_at.is_none() { " so far" } else { "" };
                title.push_str(&format!(
                    ", started {} late, ran {}{so_far}",
                    duration(started.saturating_since(e.scheduled_at)),
                    seconds_label(took)
                ));
            }
            _ => title.push_str(", did not start"),
        }
        Dot { at: e.scheduled_at, status: e.status, lag, took, title }
    }
}

/// The picture of `executions` (any order) at `now`; `None` when there is none.
pub(crate) fn fires(executions: &[Execution], job: &str, now: StoreTime) -> Option<String> {
    let dots: Vec<Dot> = executions.iter().map(|e| Dot::new(e, now)).collect();
    let first = dots.iter().map(|d| d.at).min()?;
    let last = dots.iter().map(|d| d.at).max()?;
    let label = format!("lag and duration of the latest {} executions of {job}", dots.len());
    let mut svg = Svg::new(WIDTH, TOOK_TOP + PLOT + 24.0, "fires", label);
    let count = |status| dots.iter().filter(|d| d.status == status).count();
    outcomes(&mut svg, (LEFT, 2.0), "dot", count);
    let x = Linear::time(first, last, (LEFT + 6.0, WIDTH - RIGHT - 6.0));
    let lags = dots.iter().map(|d| (d, d.lag));
    plot(&mut svg, &x, LAG_TOP, "lag: start after the scheduled instant", lags.collect());
    let took = dots.iter().map(|d| (d, d.took));
    plot(&mut svg, &x, TOOK_TOP, "duration", took.collect());
    time_axis(&mut svg, &x, (first, last), TOOK_TOP + PLOT, WIDTH - LEFT - RIGHT);
    Some(svg.finish())
}

/// One plot from `top`: a dot per value, and a mark on the baseline for each execution
/// without one.
fn plot(svg: &mut Svg, x: &Linear, top: f64, name: &str, values: Vec<(&Dot, Option<f64>)>) {
    let bottom = top + PLOT;
    let max = values.iter().filter_map(|(_, value)| *value).fold(0.0, f64::max);
    let top_value = round_top(max, FLOOR, 2);
    let y = Linear::new((0.0, top_value), (bottom, top));
    svg.text((LEFT, top - 8.0), Anchor::Start, "plot-name", name);
    value_axis(svg, &y, top_value, (LEFT, WIDTH - RIGHT), seconds_label);
    for (dot, value) in values {
        let class = format!("dot {}", dot.status);
        match value {
            Some(value) => svg.circle((x.at_time(dot.at), y.at(value)), 3.5, &class, &dot.title),
            None => {
                let mark =
                    Area { x: x.at_time(dot.at) - 1.5, y: bottom - 8.0, width: 3.0, height: 8.0 };
                svg.rect(mark, &format!("{class} unstarted"), None, &dot.title);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use baton::core::ExecutionStatus::{Missed, Running, Succeeded};

    use super::*;
    use crate::dashboard::chart::sample::execution;
    use crate::dashboard::chart::svg::num;

    const NOW: StoreTime = StoreTime::from_millis(100_000);

    #[test]
    fn no_execution_no_picture() {
        assert!(fires(&[], "j", NOW).is_none());
    }

    #[test]
    fn one_execution_sits_in_the_middle_of_both_plots() {
        let picture =
            fires(&[execution(1, Succeeded, 10_000, Some(10_500), Some(12_500))], "j", NOW)
                .unwrap();
        let middle = (LEFT + 6.0 + WIDTH - RIGHT - 6.0) / 2.0;
        assert_eq!(picture.matches(&format!(r#"<circle cx="{middle}""#)).count(), 2, "{picture}");
        assert!(picture.contains("started 500 ms late, ran 2 s</title>"), "{picture}");
        assert!(picture.contains(">succeeded 1</text>"), "the legend counts it: {picture}");
    }

    #[test]
    fn values_are_placed_on_a_round_axis() {
        let executions = [
            execution(1, Succeeded, 0, Some(0), Some(3_000)),
            execution(2, Succeeded, 60_000, Some(60_000), Some(60_000 + 1_500)),
        ];
        let picture = fires(&executions, "j", NOW).unwrap();
        // Durations of 3 s and 1.5 s on an axis to 4 s: 3/4 and 3/8 up the duration plot.
        let bottom = TOOK_TOP + PLOT;
        for share in [0.75, 0.375] {
            let y = format!(r#"cy="{}""#, num(bottom - share * PLOT));
            assert!(picture.contains(&y), "{y} in {picture}");
        }
        assert!(picture.contains(">4 s</text>"), "the axis top: {picture}");
    }

    #[test]
    fn an_execution_that_did_not_start_is_a_mark_on_the_baseline() {
        let executions =
            [execution(1, Missed, 0, None, None), execution(2, Running, 1_000, Some(1_000), None)];
        let picture = fires(&executions, "j", NOW).unwrap();
        assert!(picture.contains(r#"class="dot missed unstarted"><title>#1 missed"#), "{picture}");
        assert!(picture.contains("did not start"), "{picture}");
        assert!(picture.contains("ran 1.6 min so far"), "a running one's time so far: {picture}");
    }
}
