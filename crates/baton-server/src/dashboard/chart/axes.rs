//! What the pictures share: a time axis, a value axis with grid lines, and a legend.

use baton::StoreTime;
use baton::core::ExecutionStatus;

use super::scale::{Linear, ticks, time_label, time_ticks};
use super::svg::{Anchor, Area, Svg};

/// Roughly how wide a character of a legend or a mark is, in user units.
const CHAR_WIDTH: f64 = 6.4;

/// Marks round times of `span` below a plot `width` wide whose bottom is at `y`, about one
/// every 110 user units.
pub(crate) fn time_axis(
    svg: &mut Svg,
    x: &Linear,
    span: (StoreTime, StoreTime),
    y: f64,
    width: f64,
) {
    let (marks, step) = time_ticks(span.0, span.1, (width / 110.0).max(1.0) as usize);
    for mark in marks {
        let at = x.at_time(mark);
        svg.line((at, y), (at, y + 4.0), "axis");
        svg.text((at, y + 15.0), Anchor::Middle, "tick", &time_label(mark, step));
    }
}

/// Grid lines at round values from zero to `top` across a plot from `left` to `right`, each
/// labelled on the left by `label`.
pub(crate) fn value_axis(
    svg: &mut Svg,
    y: &Linear,
    top: f64,
    (left, right): (f64, f64),
    label: fn(f64) -> String,
) {
    for value in ticks(top, 2) {
        let at = y.at(value);
        svg.line((left, at), (right, at), if value == 0.0 { "axis" } else { "grid" });
        svg.text((left - 6.0, at + 4.0), Anchor::End, "tick", &label(value));
    }
}

/// One entry of a legend: a swatch coloured by its class (or `fill`) and a label.
pub(crate) struct Entry {
    pub class: String,
    pub fill: Option<String>,
    pub label: String,
}

/// A row of swatches and labels starting at `at` (the top left of the first swatch).
pub(crate) fn legend(svg: &mut Svg, at: (f64, f64), entries: &[Entry]) {
    let mut x = at.0;
    for entry in entries {
        let swatch = Area { x, y: at.1, width: 10.0, height: 10.0 };
        svg.rect(swatch, &entry.class, entry.fill.as_deref(), "");
        svg.text((x + 14.0, at.1 + 9.0), Anchor::Start, "legend", &entry.label);
        x += 14.0 + entry.label.chars().count() as f64 * CHAR_WIDTH + 14.0;
    }
}

/// A legend of the outcomes that occur, each with its count, swatches classed `shape` and
/// the status.
pub(crate) fn outcomes(
    svg: &mut Svg,
    at: (f64, f64),
    shape: &str,
    count: impl Fn(ExecutionStatus) -> usize,
) {
    let entries: Vec<Entry> = ExecutionStatus::ALL
        .iter()
        .filter_map(|status| {
            let count = count(*status);
            (count > 0).then(|| Entry {
                class: format!("{shape} {status}"),
                fill: None,
                label: format!("{status} {count}"),
            })
        })
        .collect();
    legend(svg, at, &entries);
}
