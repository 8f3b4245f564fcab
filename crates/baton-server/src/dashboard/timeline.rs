//! A lease's recent leader terms, laid out on a timeline from the first shown to now.

use baton::{LeaderChange, Lease, StoreTime};

use super::format::{duration, instant};

/// One stretch of a lease's timeline: a term of one holder, or a time without one.
pub(crate) struct Term {
    /// The holder, or `None` for a stretch without one.
    pub holder: Option<String>,
    pub token: String,
    pub reason: &'static str,
    pub start: String,
    pub length: String,
    /// Its share of the timeline, in percent, written with two decimals.
    pub width: String,
    /// A colour per holder, so that one holder's terms look alike.
    pub hue: u32,
}

/// The terms begun by `changes` (oldest first, all of `lease`), each lasting until the next
/// change, the last until the lease's expiry or release, and a vacant stretch after that if
/// the lease is not held at `now`.
pub(crate) fn terms(changes: &[LeaderChange], lease: Option<&Lease>, now: StoreTime) -> Vec<Term> {
    let Some(first) = changes.first() else { return Vec::new() };
    let mut stretches: Vec<(Option<&LeaderChange>, StoreTime, StoreTime)> = Vec::new();
    for (i, change) in changes.iter().enumerate() {
        let end = match changes.get(i + 1) {
            Some(next) => next.at,
            None => match lease.filter(|lease| lease.token == change.token) {
                Some(lease) if lease.holder_at(now).is_none() => lease.expires_at.min(now),
                _ => now,
            },
        };
        stretches.push((Some(change), change.at, end.max(change.at)));
    }
    if let Some(&(_, _, end)) = stretches.last().filter(|(_, _, end)| *end < now) {
        stretches.push((None, end, now));
    }
    let total = now.saturating_since(first.at).as_millis().max(1) as f64;
    stretches
        .into_iter()
        .map(|(change, start, end)| {
            let span = end.saturating_since(start);
            Term {
                holder: change.map(|c| c.holder.to_string()),
                token: change.map(|c| c.token.to_string()).unwrap_or_default(),
                reason: change.map_or("", |c| c.reason.as_str()),
                start: instant(start),
                length: duration(span),
                width: format!("{:.2}", span.as_millis() as f64 * 100.0 / total),
                hue: change.map_or(0, |c| hue(c.holder.as_str())),
            }
        })
        .collect()
}

/// A hue from 0 to 359 derived from the text (FNV-1a).
fn hue(text: &str) -> u32 {
    let hash = text
        .bytes()
        .fold(0x811c_9dc5_u32, |hash, byte| (hash ^ u32::from(byte)).wrapping_mul(0x0100_0193));
    hash % 360
}

#[cfg(test)]
mod tests {
    use baton::{ChangeReason, FencingToken, HolderId, LeaseName};

    use super::*;

    fn change(id: i64, holder: &str, at: i64) -> LeaderChange {
        LeaderChange {
            id,
            lease: LeaseName::new("l").unwrap(),
            holder: HolderId::new(holder).unwrap(),
            token: FencingToken::new(id as u64).unwrap(),
            at: StoreTime::from_millis(at),
            reason: ChangeReason::Fresh,
            previous_end: None,
        }
    }

    #[test]
    fn terms_share_the_timeline_up_to_now() {
        let changes = [change(1, "a", 0), change(2, "b", 3_000)];
        let terms = terms(&changes, None, StoreTime::from_millis(4_000));
        let widths: Vec<&str> = terms.iter().map(|t| t.width.as_str()).collect();
        assert_eq!(widths, ["75.00", "25.00"]);
        assert_eq!(terms[1].holder.as_deref(), Some("b"));
    }
}
