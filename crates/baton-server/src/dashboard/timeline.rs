//! A lease's recent leader terms laid out in time, from the first shown to now: who held it,
//! when its holder went silent before a failover, and when nobody held it.
//!
//! The history records when each term began and, with a takeover, when the term before it ended
//! (its last renewal) on the store's clock: the failover is drawn from that instant. Records
//! written before stores kept that instant give only a lower bound: a holder whose lease
//! expired had not renewed it for at least its time to live (the lease's current TTL is taken
//! as the one it had). The latest term's end is known exactly from the lease record: its last
//! renewal, and its expiry or release.

use baton::{ChangeReason, LeaderChange, Lease, StoreTime};

use super::format::{duration, instant};

/// What a stretch of a lease's time was.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Held by the holder at this position of [`Timeline::holders`].
    Held(usize),
    /// Held on record, but its holder no longer renewed it: the start of a failover.
    Silent,
    /// Nobody held it.
    Vacant,
}

/// One stretch of a lease's time.
pub(crate) struct Stretch {
    pub kind: Kind,
    pub start: StoreTime,
    pub end: StoreTime,
    /// What a hover tells of it.
    pub title: String,
}

/// One leader term, for a table.
pub(crate) struct Term {
    pub holder: String,
    pub token: String,
    pub reason: &'static str,
    pub start: String,
    /// How long it was held and renewed.
    pub length: String,
    /// The failover that began it, when the previous holder's lease expired.
    pub failover: String,
}

/// A lease's recent terms laid out in time.
pub(crate) struct Timeline {
    /// The holders, in the order they first appear.
    pub holders: Vec<String>,
    /// The stretches from the first term shown to now, in order.
    pub stretches: Vec<Stretch>,
    /// The terms, oldest first.
    pub terms: Vec<Term>,
}

impl Timeline {
    /// The timeline of the terms begun by `changes` (oldest first, all of `lease`) up to `now`.
    pub fn new(changes: &[LeaderChange], lease: &Lease, now: StoreTime) -> Self {
        let mut timeline =
            Timeline { holders: Vec::new(), stretches: Vec::new(), terms: Vec::new() };
        let mut failover = String::new();
        for (i, change) in changes.iter().enumerate() {
            let holder = change.holder.to_string();
            let slot = match timeline.holders.iter().position(|known| *known == holder) {
                Some(slot) => slot,
                None => {
                    timeline.holders.push(holder.clone());
                    timeline.holders.len() - 1
                }
            };
            let (held_until, after) = match changes.get(i + 1) {
                Some(next) => before_next(change, next, lease),
                None => after_last(change, lease, now),
            };
            let held_until = held_until.max(change.at);
            let held = held_until.saturating_since(change.at);
            let next_known = changes.get(i + 1).is_some_and(|next| next.previous_end.is_some());
            let silent_next = after.first().is_some_and(|s| s.kind == Kind::Silent);
            let bound =
                if silent_next && i + 1 < changes.len() && !next_known { "at most " } else { "" };
            timeline.terms.push(Term {
                holder: holder.clone(),
                token: change.token.to_string(),
                reason: change.reason.as_str(),
                start: instant(change.at),
                length: format!("{bound}{}", duration(held)),
                failover: std::mem::take(&mut failover),
            });
            timeline.stretches.push(Stretch {
                kind: Kind::Held(slot),
                start: change.at,
                end: held_until,
                title: format!(
                    "{holder}, token {} ({}), from {} for {bound}{}",
                    change.token,
                    change.reason.as_str(),
                    instant(change.at),
                    duration(held)
                ),
            });
            if let (Some(silent), Some(_)) = (after.first(), changes.get(i + 1)) {
                let lasted = duration(silent.end.saturating_since(silent.start));
                failover = if next_known { lasted } else { format!("at least {lasted}") };
            }
            timeline.stretches.extend(after);
        }
        timeline
    }
}

/// When a term followed by `next` stopped being renewed, at the latest, and the failover
/// stretch before `next` when the lease expired in between.
fn before_next(
    change: &LeaderChange,
    next: &LeaderChange,
    lease: &Lease,
) -> (StoreTime, Vec<Stretch>) {
    if next.reason != ChangeReason::ExpiredTakeover {
        return (next.at, Vec::new());
    }
    let ttl = i64::try_from(lease.ttl.as_millis()).unwrap_or(i64::MAX);
    let (silent_from, at_least) = match next.previous_end {
        Some(end) => (end.max(change.at), ""),
        None => (
            StoreTime::from_millis(next.at.as_millis().saturating_sub(ttl)).max(change.at),
            "at least ",
        ),
    };
    let silent = Stretch {
        kind: Kind::Silent,
        start: silent_from,
        end: next.at,
        title: format!(
            "failover: {} had not renewed the lease for {at_least}{} when {} took over at {}",
            change.holder,
            duration(next.at.saturating_since(silent_from)),
            next.holder,
            instant(next.at)
        ),
    };
    (silent_from, vec![silent])
}

/// When the latest term stopped being renewed, and what followed it up to `now`: from the
/// lease record when it holds this term and nobody holds it now.
fn after_last(change: &LeaderChange, lease: &Lease, now: StoreTime) -> (StoreTime, Vec<Stretch>) {
    if lease.token != change.token || lease.holder_at(now).is_some() {
        return (now, Vec::new());
    }
    let vacant_from = lease.expires_at.min(now);
    let mut after = Vec::new();
    let held_until = match lease.released {
        Some(_) => vacant_from,
        None => {
            let renewed = lease.renewed_at.clamp(change.at, vacant_from);
            after.push(Stretch {
                kind: Kind::Silent,
                start: renewed,
                end: vacant_from,
                title: format!(
                    "{} last renewed the lease at {}; it expired at {}",
                    change.holder,
                    instant(renewed),
                    instant(vacant_from)
                ),
            });
            renewed
        }
    };
    let why = match lease.released {
        Some(kind) => format!("released ({})", kind.as_str()),
        None => "expired".to_string(),
    };
    after.push(Stretch {
        kind: Kind::Vacant,
        start: vacant_from,
        end: now,
        title: format!("no holder since {} ({why})", instant(vacant_from)),
    });
    (held_until, after)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use baton::core::ReleaseKind;
    use baton::{FencingToken, HolderId, LeaseName};

    use super::*;

    fn change(id: i64, holder: &str, at: i64, reason: ChangeReason) -> LeaderChange {
        LeaderChange {
            id,
            lease: LeaseName::new("l").unwrap(),
            holder: HolderId::new(holder).unwrap(),
            token: FencingToken::new(id as u64).unwrap(),
            at: StoreTime::from_millis(at),
            reason,
            previous_end: None,
        }
    }

    /// The lease under token `token` held by `holder`, renewed at `renewed` with a TTL of
    /// 10 s, or released at `released`.
    fn lease(
        token: u64,
        holder: &str,
        renewed: i64,
        released: Option<(i64, ReleaseKind)>,
    ) -> Lease {
        let ttl = Duration::from_secs(10);
        Lease {
            name: LeaseName::new("l").unwrap(),
            holder: released.is_none().then(|| HolderId::new(holder).unwrap()),
            token: FencingToken::new(token).unwrap(),
            acquired_at: StoreTime::from_millis(0),
            renewed_at: StoreTime::from_millis(renewed),
            expires_at: StoreTime::from_millis(released.map_or(renewed + 10_000, |(at, _)| at)),
            ttl,
            released: released.map(|(_, kind)| kind),
        }
    }

    fn lay_out(changes: &[LeaderChange], lease: Lease, now: i64) -> Timeline {
        Timeline::new(changes, &lease, StoreTime::from_millis(now))
    }

    fn spans(timeline: &Timeline) -> Vec<(Kind, i64, i64)> {
        let at = |t: StoreTime| t.as_millis();
        timeline.stretches.iter().map(|s| (s.kind, at(s.start), at(s.end))).collect()
    }

    #[test]
    fn no_change_no_timeline() {
        let timeline = lay_out(&[], lease(1, "a", 0, None), 5);
        assert!(timeline.stretches.is_empty() && timeline.terms.is_empty());
    }

    #[test]
    fn a_held_lease_is_one_term_up_to_now() {
        let changes = [change(1, "a", 1_000, ChangeReason::Fresh)];
        let timeline = lay_out(&changes, lease(1, "a", 4_000, None), 5_000);
        assert_eq!(spans(&timeline), [(Kind::Held(0), 1_000, 5_000)]);
        assert_eq!(timeline.terms[0].length, "4 s");
    }

    #[test]
    fn an_expired_takeover_shows_at_least_a_ttl_of_silence() {
        let changes = [
            change(1, "a", 0, ChangeReason::Fresh),
            change(2, "b", 60_000, ChangeReason::ExpiredTakeover),
            change(3, "a", 90_000, ChangeReason::Handover),
        ];
        let timeline = lay_out(&changes, lease(3, "a", 95_000, None), 100_000);
        assert_eq!(
            spans(&timeline),
            [
                (Kind::Held(0), 0, 50_000),
                (Kind::Silent, 50_000, 60_000),
                (Kind::Held(1), 60_000, 90_000),
                (Kind::Held(0), 90_000, 100_000),
            ]
        );
        assert_eq!(timeline.holders, ["a", "b"]);
        let failovers: Vec<&str> = timeline.terms.iter().map(|t| t.failover.as_str()).collect();
        assert_eq!(failovers, ["", "at least 10 s", ""], "a handover has no failover");
        assert_eq!(timeline.terms[0].length, "at most 50 s");

        // A takeover sooner than a TTL after the term began: the silence starts with it.
        let early = [changes[0].clone(), change(2, "b", 4_000, ChangeReason::ExpiredTakeover)];
        let timeline = lay_out(&early, lease(2, "b", 4_000, None), 5_000);
        assert_eq!(spans(&timeline)[..2], [(Kind::Held(0), 0, 0), (Kind::Silent, 0, 4_000)]);
    }

    #[test]
    fn a_takeover_that_records_the_previous_end_shows_the_failover_exactly() {
        let mut takeover = change(2, "b", 60_000, ChangeReason::ExpiredTakeover);
        takeover.previous_end = Some(StoreTime::from_millis(47_000));
        let changes = [change(1, "a", 0, ChangeReason::Fresh), takeover];
        let timeline = lay_out(&changes, lease(2, "b", 61_000, None), 62_000);
        assert_eq!(
            spans(&timeline),
            [
                (Kind::Held(0), 0, 47_000),
                (Kind::Silent, 47_000, 60_000),
                (Kind::Held(1), 60_000, 62_000)
            ]
        );
        assert_eq!(timeline.terms[0].length, "47 s");
        assert_eq!(timeline.terms[1].failover, "13 s");
    }

    #[test]
    fn an_expired_lease_is_silent_until_its_expiry_then_vacant() {
        let changes = [change(1, "a", 0, ChangeReason::Fresh)];
        let timeline = lay_out(&changes, lease(1, "a", 20_000, None), 40_000);
        assert_eq!(
            spans(&timeline),
            [
                (Kind::Held(0), 0, 20_000),
                (Kind::Silent, 20_000, 30_000),
                (Kind::Vacant, 30_000, 40_000)
            ]
        );
        assert!(timeline.stretches[2].title.contains("(expired)"));
    }

    #[test]
    fn a_released_lease_is_vacant_from_its_release() {
        let changes = [change(1, "a", 0, ChangeReason::Fresh)];
        let released = Some((25_000, ReleaseKind::Forced));
        let timeline = Timeline::new(
            &changes,
            &lease(1, "a", 20_000, released),
            StoreTime::from_millis(40_000),
        );
        assert_eq!(spans(&timeline), [(Kind::Held(0), 0, 25_000), (Kind::Vacant, 25_000, 40_000)]);
        assert!(timeline.stretches[1].title.contains("released (forced)"));
    }
}
