//! Scales: where a value or an instant falls on a picture, and the round values and times
//! its axes mark.

use baton::StoreTime;

/// Round steps between the times an axis marks, in milliseconds.
const TIME_STEPS: [i64; 20] = [
    1_000,
    2_000,
    5_000,
    10_000,
    15_000,
    30_000,
    60_000,
    120_000,
    300_000,
    600_000,
    900_000,
    1_800_000,
    3_600_000,
    7_200_000,
    10_800_000,
    21_600_000,
    43_200_000,
    86_400_000,
    172_800_000,
    604_800_000,
];
const HOUR: i64 = 3_600_000;

/// A linear map from a domain of values onto a range of positions.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Linear {
    start: f64,
    end: f64,
    from: f64,
    to: f64,
}

impl Linear {
    /// Maps `domain` onto `range`; the range may run backwards, as a y axis does.
    pub fn new(domain: (f64, f64), range: (f64, f64)) -> Self {
        Linear { start: domain.0, end: domain.1, from: range.0, to: range.1 }
    }

    /// Maps the instants from `start` to `end` onto `range`.
    pub fn time(start: StoreTime, end: StoreTime, range: (f64, f64)) -> Self {
        Linear::new((start.as_millis() as f64, end.as_millis() as f64), range)
    }

    /// The position of `value`, kept within the range; the middle of the range when the
    /// domain is a single value.
    pub fn at(&self, value: f64) -> f64 {
        let span = self.end - self.start;
        if !(span.is_finite() && span > 0.0) {
            return (self.from + self.to) / 2.0;
        }
        let share = ((value - self.start) / span).clamp(0.0, 1.0);
        self.from + share * (self.to - self.from)
    }

    /// The position of an instant.
    pub fn at_time(&self, at: StoreTime) -> f64 {
        self.at(at.as_millis() as f64)
    }
}

/// A round step (1, 2 or 5 times a power of ten) that cuts `span` in about `count` parts.
pub(crate) fn step(span: f64, count: usize) -> f64 {
    if !(span.is_finite() && span > 0.0) {
        return 1.0;
    }
    let rough = span / count.max(1) as f64;
    let power = 10f64.powf(rough.log10().floor());
    let nice = match rough / power {
        m if m <= 1.0 => 1.0,
        m if m <= 2.0 => 2.0,
        m if m <= 5.0 => 5.0,
        _ => 10.0,
    };
    nice * power
}

/// The top of an axis from zero that holds `max` (at least `floor`): the first multiple of
/// a round step at or above it.
pub(crate) fn round_top(max: f64, floor: f64, count: usize) -> f64 {
    let max = if max.is_finite() { max.max(floor) } else { floor };
    let step = step(max, count);
    (max / step).ceil() * step
}

/// The round values from zero to `top` an axis marks, about `count` steps apart.
pub(crate) fn ticks(top: f64, count: usize) -> Vec<f64> {
    let step = step(top, count);
    (0..=count * 2 + 2)
        .map(|i| i as f64 * step)
        .take_while(|value| *value <= top * (1.0 + 1e-9))
        .collect()
}

/// The round instants from `start` to `end` an axis marks, about `count` of them, and the
/// step between them in milliseconds; the start alone when no round instant falls between.
pub(crate) fn time_ticks(start: StoreTime, end: StoreTime, count: usize) -> (Vec<StoreTime>, i64) {
    let (first, last) = (start.as_millis(), end.as_millis());
    let span = last - first;
    if span <= 0 {
        return (vec![start], TIME_STEPS[0]);
    }
    let rough = span / count.max(1) as i64;
    let step = TIME_STEPS.into_iter().find(|step| *step >= rough).unwrap_or(TIME_STEPS[19]);
    let from = first.div_euclid(step) * step + if first.rem_euclid(step) == 0 { 0 } else { step };
    let marks: Vec<StoreTime> = (0..)
        .map(|i| from + i * step)
        .take_while(|at| *at <= last)
        .map(StoreTime::from_millis)
        .collect();
    if marks.is_empty() {
        return (vec![start], step);
    }
    (marks, step)
}

/// An axis mark for an instant, in UTC: `10:05:30` when marks are under a minute apart,
/// `10:05` when under an hour, `11-21 10:00` from an hour.
pub(crate) fn time_label(at: StoreTime, step: i64) -> String {
    let text = at.to_string();
    let range = match step {
        ..60_000 => 11..19,
        60_000..HOUR => 11..16,
        _ => 5..16,
    };
    text.get(range).map_or(text.clone(), |part| part.replacen('T', " ", 1))
}

/// A length of time given in seconds, short: `0`, `250 ms`, `1.5 s`, `2 min`, `1.5 h`.
pub(crate) fn seconds_label(secs: f64) -> String {
    match secs {
        s if !(s.is_finite() && s > 0.0) => "0".to_string(),
        s if s < 1.0 => format!("{} ms", (s * 1000.0).round()),
        s if s < 60.0 => format!("{} s", short(s)),
        s if s < 3600.0 => format!("{} min", short(s / 60.0)),
        s => format!("{} h", short(s / 3600.0)),
    }
}

/// A number with at most one decimal, without a trailing `.0`.
fn short(value: f64) -> String {
    let text = format!("{value:.1}");
    text.strip_suffix(".0").map_or(text.clone(), str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> StoreTime {
        StoreTime::parse(text).unwrap()
    }

    #[test]
    fn a_scale_maps_and_clamps() {
        let y = Linear::new((0.0, 10.0), (100.0, 0.0));
        assert_eq!(y.at(0.0), 100.0);
        assert_eq!(y.at(2.5), 75.0);
        assert_eq!(y.at(10.0), 0.0);
        assert_eq!(y.at(20.0), 0.0, "kept within the range");
        assert_eq!(y.at(-5.0), 100.0);
    }

    #[test]
    fn a_single_value_sits_in_the_middle() {
        assert_eq!(Linear::new((3.0, 3.0), (0.0, 200.0)).at(3.0), 100.0);
        let t = at("2026-01-01T00:00:00Z");
        assert_eq!(Linear::time(t, t, (10.0, 30.0)).at_time(t), 20.0);
    }

    #[test]
    fn steps_and_tops_are_round() {
        assert_eq!(step(10.0, 4), 5.0);
        assert_eq!(step(0.7, 3), 0.5);
        assert_eq!(step(0.0, 3), 1.0);
        assert_eq!(round_top(7.3, 0.0, 2), 10.0);
        assert_eq!(round_top(2.1, 0.0, 2), 4.0);
        assert_eq!(round_top(0.0, 0.01, 3), 0.01);
        assert_eq!(round_top(f64::NAN, 1.0, 3), 1.0);
        assert_eq!(ticks(10.0, 2), [0.0, 5.0, 10.0]);
        assert_eq!(ticks(4.0, 2), [0.0, 2.0, 4.0]);
        assert_eq!(ticks(1.0, 2), [0.0, 0.5, 1.0]);
    }

    #[test]
    fn times_are_marked_at_round_instants() {
        let (marks, step) = time_ticks(at("2026-01-01T10:03:10Z"), at("2026-01-01T11:03:10Z"), 6);
        assert_eq!(step, 600_000);
        let labels: Vec<String> = marks.iter().map(|m| time_label(*m, step)).collect();
        assert_eq!(labels, ["10:10", "10:20", "10:30", "10:40", "10:50", "11:00"]);
        let (marks, step) = time_ticks(at("2026-01-01T10:00:00Z"), at("2026-01-01T10:00:20Z"), 4);
        assert_eq!((marks.len(), step), (5, 5_000), "a mark on the start itself");
        assert_eq!(time_label(marks[1], step), "10:00:05");
        assert_eq!(time_label(at("2026-11-21T06:00:00Z"), 6 * HOUR), "11-21 06:00");
    }

    #[test]
    fn an_empty_span_marks_its_only_instant() {
        let t = at("2026-01-01T10:00:00Z");
        assert_eq!(time_ticks(t, t, 5).0, [t]);
        let (start, end) = (at("2026-01-01T10:00:00.100Z"), at("2026-01-01T10:00:00.900Z"));
        assert_eq!(time_ticks(start, end, 5), (vec![start], 1_000), "no round second between");
    }

    #[test]
    fn lengths_of_time_are_short() {
        assert_eq!(seconds_label(0.0), "0");
        assert_eq!(seconds_label(0.25), "250 ms");
        assert_eq!(seconds_label(1.5), "1.5 s");
        assert_eq!(seconds_label(120.0), "2 min");
        assert_eq!(seconds_label(5400.0), "1.5 h");
    }
}
