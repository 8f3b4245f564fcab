//! Expiry without a server clock, for stores that never expire a record themselves (the
//! Kubernetes Lease API, DynamoDB): a contender judges a lease expired when its record has stayed
//! unchanged for the lease's duration on the contender's own monotonic clock, counted from when
//! it first saw that version (client-go's rule, stricter: any write restarts the count, not only
//! a change of the record's fields). A holder renews before its own deadline, which runs from
//! before the write that the contender saw, so the holder stops first whatever the two clocks'
//! wall times say.
//!
//! A version is seen when a read returns it or when the store's change feed reports it,
//! whichever comes first: a contender that waits for the holder's expiry rather than polling
//! still counts from the holder's last renewal, so it takes over one duration after that renewal.

use std::time::Duration;

use tokio::time::Instant;

use super::Remembered;

/// When this process first saw each lease's current version: the clock by which a store without
/// server-side expiry judges a record expired. A version forgotten (the memory is bounded) is
/// seen anew, which only delays a takeover.
#[derive(Default)]
pub struct Sightings {
    /// Each lease's version and when it was first seen.
    seen: Remembered<(String, Instant)>,
}

impl Sightings {
    /// Records a sighting of `name` at `version` reported by a change feed (a watch).
    pub fn saw(&self, name: &str, version: &str) {
        self.unchanged_for(name, version);
    }

    /// How long `name` has been seen at `version` without a change: zero at its first sighting.
    pub fn unchanged_for(&self, name: &str, version: &str) -> Duration {
        let now = Instant::now();
        let (_, since) = self.seen.keep_or_remember(
            name,
            |(known, _)| known == version,
            || (version.to_string(), now),
        );
        now.duration_since(since)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn a_version_ages_from_its_first_sighting_and_a_change_starts_over() {
        let sightings = Sightings::default();
        assert_eq!(sightings.unchanged_for("job", "10"), Duration::ZERO);
        tokio::time::advance(Duration::from_secs(4)).await;
        assert_eq!(sightings.unchanged_for("job", "10"), Duration::from_secs(4));
        assert_eq!(sightings.unchanged_for("other", "10"), Duration::ZERO, "per lease");
        assert_eq!(sightings.unchanged_for("job", "11"), Duration::ZERO, "a renewal");
        tokio::time::advance(Duration::from_secs(1)).await;
        assert_eq!(sightings.unchanged_for("job", "11"), Duration::from_secs(1));
    }
}
