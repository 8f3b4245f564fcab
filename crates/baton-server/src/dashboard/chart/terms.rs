//! A lease's leader terms as a bar along a time axis: a colour per holder, failovers and
//! times without a holder hatched.

use baton::StoreTime;

use super::axes::{Entry, legend, time_axis};
use super::scale::Linear;
use super::svg::{Area, Svg};
use crate::dashboard::timeline::{Kind, Timeline};

/// Colours for holders, told apart easily; holders past these get hues a golden angle apart.
const PALETTE: [&str; 8] =
    ["#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#76b7b2", "#edc948", "#9c755f", "#ff9da7"];
/// The narrowest a stretch is drawn, so that a short one stays visible.
const MIN_WIDTH: f64 = 1.5;

/// The colour of the holder at `slot` of a timeline's holders.
pub(crate) fn holder_colour(slot: usize) -> String {
    match PALETTE.get(slot) {
        Some(colour) => (*colour).to_string(),
        None => format!("hsl({}, 55%, 50%)", (slot as f64 * 137.508) % 360.0),
    }
}

/// The lease page's picture: the terms along a time axis from the first shown to `now`, and
/// a legend of holders; `None` when no term is recorded.
pub(crate) fn terms(timeline: &Timeline, lease: &str, now: StoreTime) -> Option<String> {
    const WIDTH: f64 = 900.0;
    const LEFT: f64 = 8.0;
    const BAR: f64 = 28.0;
    let first = timeline.stretches.first()?;
    let label = format!("leader terms of {lease} from {} to now", first.start);
    let mut svg = Svg::new(WIDTH, 72.0, "terms", label);
    let mut entries: Vec<Entry> = timeline
        .holders
        .iter()
        .enumerate()
        .map(|(slot, holder)| Entry {
            class: "term".to_string(),
            fill: Some(holder_colour(slot)),
            label: holder.clone(),
        })
        .collect();
    for (kind, class, label) in
        [(Kind::Silent, "failover", "failover (no renewal)"), (Kind::Vacant, "vacant", "no holder")]
    {
        if timeline.stretches.iter().any(|s| s.kind == kind) {
            let (class, label) = (class.to_string(), label.to_string());
            entries.push(Entry { class, fill: None, label });
        }
    }
    legend(&mut svg, (LEFT, 2.0), &entries);
    let x = Linear::time(first.start, now, (LEFT, WIDTH - LEFT));
    bar(&mut svg, timeline, &x, 20.0, BAR);
    time_axis(&mut svg, &x, (first.start, now), 20.0 + BAR, WIDTH - 2.0 * LEFT);
    Some(svg.finish())
}

/// The overview's picture: the terms as one thin bar, without axis or legend (hover a
/// stretch for its holder and times); `None` when no term is recorded.
pub(crate) fn strip(timeline: &Timeline, lease: &str, now: StoreTime) -> Option<String> {
    const WIDTH: f64 = 300.0;
    let first = timeline.stretches.first()?;
    let mut svg = Svg::new(WIDTH, 16.0, "strip", format!("leader terms of {lease}")).stretch();
    let x = Linear::time(first.start, now, (0.0, WIDTH));
    bar(&mut svg, timeline, &x, 0.0, 16.0);
    Some(svg.finish())
}

/// Draws every stretch of `timeline` as a rectangle `height` tall at `top`.
fn bar(svg: &mut Svg, timeline: &Timeline, x: &Linear, top: f64, height: f64) {
    for stretch in &timeline.stretches {
        let (start, end) = (x.at_time(stretch.start), x.at_time(stretch.end));
        let area = Area { x: start, y: top, width: (end - start).max(MIN_WIDTH), height };
        match stretch.kind {
            Kind::Held(slot) => svg.rect(area, "term", Some(&holder_colour(slot)), &stretch.title),
            Kind::Silent => svg.rect(area, "failover", None, &stretch.title),
            Kind::Vacant => svg.rect(area, "vacant", None, &stretch.title),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use baton::{ChangeReason, FencingToken, HolderId, LeaderChange, Lease, LeaseName};

    use super::*;

    fn timeline(holders: &[&str], now: i64) -> Timeline {
        let changes: Vec<LeaderChange> = holders
            .iter()
            .enumerate()
            .map(|(i, holder)| LeaderChange {
                id: i as i64 + 1,
                lease: LeaseName::new("l").unwrap(),
                holder: HolderId::new(*holder).unwrap(),
                token: FencingToken::new(i as u64 + 1).unwrap(),
                at: StoreTime::from_millis(i as i64 * 1_000),
                reason: if i == 0 { ChangeReason::Fresh } else { ChangeReason::Handover },
                previous_end: None,
            })
            .collect();
        let last = holders.len() as u64;
        let lease = Lease {
            name: LeaseName::new("l").unwrap(),
            holder: Some(HolderId::new(holders[holders.len() - 1]).unwrap()),
            token: FencingToken::new(last).unwrap(),
            acquired_at: StoreTime::from_millis(0),
            renewed_at: StoreTime::from_millis(now),
            expires_at: StoreTime::from_millis(now + 10_000),
            ttl: Duration::from_secs(10),
            released: None,
        };
        Timeline::new(&changes, &lease, StoreTime::from_millis(now))
    }

    #[test]
    fn holders_get_distinct_colours_even_past_the_palette() {
        let colours: Vec<String> = (0..12).map(holder_colour).collect();
        for (i, colour) in colours.iter().enumerate() {
            assert!(!colours[..i].contains(colour), "{colour} repeats: {colours:?}");
        }
    }

    #[test]
    fn one_holder_keeps_its_colour_across_terms() {
        let picture =
            terms(&timeline(&["a", "b", "a"], 4_000), "l", StoreTime::from_millis(4_000)).unwrap();
        assert_eq!(picture.matches(&format!(r#"fill="{}"><title>a,"#, PALETTE[0])).count(), 2);
        assert_eq!(picture.matches(&format!(r#"fill="{}"><title>b,"#, PALETTE[1])).count(), 1);
        assert!(picture.contains(">a</text>") && picture.contains(">b</text>"), "the legend");
    }

    #[test]
    fn stretches_share_the_axis_and_a_short_one_stays_visible() {
        let now = StoreTime::from_millis(100_000);
        let picture = strip(&timeline(&["a", "b"], 100_000), "l", now).unwrap();
        // a: 0 to 1 s of 100 s, 1% of 300 units; b: the rest.
        assert!(picture.contains(r#"<rect x="0" y="0" width="3" height="16" class="term""#));
        assert!(picture.contains(r#"<rect x="3" y="0" width="297" height="16" class="term""#));
        let instant = strip(&timeline(&["a"], 0), "l", StoreTime::from_millis(0)).unwrap();
        assert!(instant.contains(&format!(r#"width="{MIN_WIDTH}""#)), "{instant}");
    }
}
