//! Checks of the settings that several backends share, so that each refuses the same values
//! with the same line.

use std::time::Duration;

use crate::error::{Error, Result};

/// The shortest and longest timeouts a backend accepts for its requests and connections.
const TIMEOUT_RANGE: (Duration, Duration) = (Duration::from_millis(1), Duration::from_secs(3600));
/// The fewest and most leader changes a backend keeps per lease.
const HISTORY_RANGE: (u32, u32) = (1, 1_000_000);

/// `timeout`, if it is 1 ms to 1 hour; `setting` names it in the error, such as
/// `Redis response timeout`.
pub fn check_timeout(setting: &str, timeout: Duration) -> Result<Duration> {
    let (min, max) = TIMEOUT_RANGE;
    if timeout < min || timeout > max {
        return Err(Error::invalid_input(format!(
            "invalid {setting} {timeout:?}: expected 1ms to 1h"
        )));
    }
    Ok(timeout)
}

/// `length`, if a lease's history can keep that many leader changes (1 to 1,000,000).
pub fn check_history_length(length: u32) -> Result<u32> {
    let (min, max) = HISTORY_RANGE;
    if !(min..=max).contains(&length) {
        return Err(Error::invalid_input(format!(
            "invalid history length {length}: expected {min} to {max}"
        )));
    }
    Ok(length)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn out_of_range_settings_are_refused_with_the_value() {
        let err = check_timeout("etcd request timeout", Duration::ZERO).unwrap_err();
        assert_eq!(err.to_string(), "invalid etcd request timeout 0ns: expected 1ms to 1h");
        assert!(check_timeout("x", Duration::from_secs(7200)).is_err());
        assert!(check_history_length(0).unwrap_err().to_string().contains("history length 0"));
        assert_eq!(check_history_length(5).unwrap(), 5);
    }
}
