//! The lease TTLs an operator may set (`[timing] lease_ttl`, `baton exec --ttl`): only those a
//! store and the timers can keep. The timing scales from the TTL (renew every TTL/5, step
//! down 7/10 of the TTL after the last renewal, retry every TTL/10), so at 1 s a renewal has
//! 200 ms and the step-down margin 300 ms to outlast a store round trip, a commit and the
//! scheduling jitter of a busy host; below that, leadership flips under ordinary latency.

use std::time::Duration;

/// The shortest TTL accepted.
pub const MIN_TTL: Duration = Duration::from_secs(1);
/// The longest TTL accepted.
pub const MAX_TTL: Duration = Duration::from_secs(30 * 24 * 3600);

/// Checks that `ttl` is within [`MIN_TTL`]..=[`MAX_TTL`].
pub fn check(ttl: Duration) -> Result<Duration, String> {
    if (MIN_TTL..=MAX_TTL).contains(&ttl) {
        return Ok(ttl);
    }
    Err(format!(
        "invalid TTL {ttl:?}: expected 1s to 30 days (renewals every TTL/5 and a step-down \
         margin of 3/10 of the TTL must outlast a store round trip)"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_one_second_to_thirty_days() {
        assert!(check(MIN_TTL).is_ok() && check(MAX_TTL).is_ok());
        let refused = check(Duration::from_millis(10)).unwrap_err();
        assert!(refused.starts_with("invalid TTL 10ms: expected 1s to 30 days"), "{refused}");
        assert!(check(MAX_TTL + Duration::from_secs(1)).is_err());
    }
}
