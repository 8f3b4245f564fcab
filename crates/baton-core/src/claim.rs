//! The timing of claimed work, as pure arithmetic: a lease term, a claimed execution and a
//! claimed partition may each act until a local deadline on the monotonic clock, and every
//! instant here is passed in (nothing reads a clock).
//!
//! The deadline is the send time of the last call the store confirmed (the claim, then each
//! renewal or heartbeat) plus how long a confirmation lets the holder act, which is shorter
//! than the store's expiry by a safety margin. Timing from the *send* time, not the answer,
//! means a slow answer only shortens the holder's window, never lengthens it past the store's.

use std::ops::{Add, Sub};
use std::time::Duration;

/// How long claimed work may still act: the send time of its last confirmed call plus the
/// time a confirmation is good for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Validity<I> {
    confirmed: I,
    act_for: Duration,
}

impl<I: Copy + Ord + Add<Duration, Output = I>> Validity<I> {
    /// Work whose claiming call was sent at `sent`, allowed to act for `act_for` after each
    /// confirmed call.
    pub fn new(sent: I, act_for: Duration) -> Self {
        Validity { confirmed: sent, act_for }
    }

    /// Records that the store confirmed a call sent at `sent`; a confirmation of an earlier
    /// call than one already counted changes nothing.
    pub fn confirm(&mut self, sent: I) {
        self.confirmed = self.confirmed.max(sent);
    }

    /// The instant from which the work must not act.
    pub fn deadline(&self) -> I {
        self.confirmed + self.act_for
    }

    /// Whether the deadline has passed at `now`.
    pub fn expired(&self, now: I) -> bool {
        now >= self.deadline()
    }
}

/// Notices that a process did not run for longer than a threshold (it was paused, starved or
/// its machine suspended): the instants it was seen running are passed in, and a gap longer
/// than the threshold is a stall.
#[derive(Debug, Clone, Copy)]
pub struct StallDetector<I> {
    threshold: Duration,
    last_seen: I,
}

impl<I: Copy + Ord + Sub<I, Output = Duration>> StallDetector<I> {
    /// A detector that last saw the process run at `now`.
    pub fn new(threshold: Duration, now: I) -> Self {
        StallDetector { threshold, last_seen: now }
    }

    /// The threshold.
    pub fn threshold(&self) -> Duration {
        self.threshold
    }

    /// How often the process must be seen running for a stall of the threshold to be noticed.
    pub fn period(&self) -> Duration {
        (self.threshold / 4).max(Duration::from_millis(5))
    }

    /// Records that the process runs at `now`; answers the stall it just came out of, if the
    /// previous sighting is longer ago than the threshold.
    pub fn seen(&mut self, now: I) -> Option<Duration> {
        let stall = self.stalled(now);
        self.last_seen = self.last_seen.max(now);
        stall
    }

    /// The stall under way at `now`: the time since the last sighting, if longer than the
    /// threshold.
    pub fn stalled(&self, now: I) -> Option<Duration> {
        let gap = if now > self.last_seen { now - self.last_seen } else { Duration::ZERO };
        (gap > self.threshold).then_some(gap)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;

    #[test]
    fn the_deadline_follows_the_latest_confirmed_send_time_only() {
        let start = Instant::now();
        let act_for = Duration::from_secs(6);
        let mut validity = Validity::new(start, act_for);
        assert_eq!(validity.deadline(), start + act_for);
        validity.confirm(start + Duration::from_secs(2));
        assert_eq!(validity.deadline(), start + Duration::from_secs(8));
        // A late answer to an older call does not move the deadline back.
        validity.confirm(start + Duration::from_secs(1));
        assert_eq!(validity.deadline(), start + Duration::from_secs(8));
        assert!(!validity.expired(start + Duration::from_millis(7_999)));
        assert!(validity.expired(start + Duration::from_secs(8)));
    }

    #[test]
    fn a_gap_longer_than_the_threshold_is_a_stall() {
        let start = Instant::now();
        let mut detector = StallDetector::new(Duration::from_secs(2), start);
        assert_eq!(detector.seen(start + Duration::from_secs(1)), None);
        let late = start + Duration::from_millis(3_500);
        assert_eq!(detector.stalled(late), Some(Duration::from_millis(2_500)));
        assert_eq!(detector.seen(late), Some(Duration::from_millis(2_500)));
        assert_eq!(detector.stalled(late + Duration::from_secs(1)), None);
        // An instant older than the last sighting is no stall and does not move it back.
        assert_eq!(detector.seen(start), None);
        assert_eq!(detector.period(), Duration::from_millis(500));
    }
}
