//! When the leader sweeps next: at its next tick, or just after the oldest active node can
//! become unreachable, whichever comes first.

use std::time::Duration;

use baton_core::cluster::{NodeThresholds, Swept};
use tokio::time::Instant;

/// How long after the instant the oldest active node can become unreachable the leader
/// sweeps: room for the local and the store's clocks running at slightly different rates.
const SWEEP_MARGIN: Duration = Duration::from_millis(20);

/// The local instant at which the oldest node a sweep left active can have become unreachable,
/// plus [`SWEEP_MARGIN`], for a sweep answered at `answered`; `None` when no node is active,
/// or when one is already past its threshold (a node the sweep left alone because it was
/// writing at that moment, so alive), which the next tick sweeps again.
///
/// Heartbeats only move forward, so no node active now can become unreachable earlier; a
/// node that registers later becomes unreachable later still.
pub(super) fn unreachable_at(
    swept: &Swept,
    thresholds: &NodeThresholds,
    answered: Instant,
) -> Option<Instant> {
    let oldest = swept.oldest_active_heartbeat?;
    // Silence counts in whole milliseconds and must exceed the threshold.
    let silent_enough = thresholds.unreachable_after() + Duration::from_millis(1);
    let ahead = oldest.saturating_add(silent_enough).saturating_since(swept.now);
    (!ahead.is_zero()).then(|| answered + ahead + SWEEP_MARGIN)
}

#[cfg(test)]
mod tests {
    use baton_core::StoreTime;

    use super::*;

    fn swept(now: i64, oldest: Option<i64>) -> Swept {
        Swept {
            changes: Vec::new(),
            now: StoreTime::from_millis(now),
            oldest_active_heartbeat: oldest.map(StoreTime::from_millis),
        }
    }

    #[test]
    fn the_next_sweep_comes_just_after_the_oldest_heartbeat_goes_stale() {
        let thresholds = NodeThresholds::default();
        let answered = Instant::now();
        let at = unreachable_at(&swept(50_000, Some(48_500)), &thresholds, answered);
        let expected = Duration::from_millis(10_000 - 1_500 + 1) + SWEEP_MARGIN;
        assert_eq!(at, Some(answered + expected));
    }

    #[test]
    fn no_active_node_or_one_already_stale_leaves_it_to_the_next_tick() {
        let thresholds = NodeThresholds::default();
        let answered = Instant::now();
        assert_eq!(unreachable_at(&swept(50_000, None), &thresholds, answered), None);
        assert_eq!(unreachable_at(&swept(50_000, Some(39_999)), &thresholds, answered), None);
        let boundary = unreachable_at(&swept(50_000, Some(40_000)), &thresholds, answered);
        assert_eq!(boundary, Some(answered + Duration::from_millis(1) + SWEEP_MARGIN));
    }
}
