//! Durations as Consul reads them: Go's duration strings (`10s`, `1m30s`, `15ms`, `0`), and for
//! a lock-delay also a number (nanoseconds, or seconds below 1000, as Consul's own fix-up
//! reads a number that small).

use std::time::Duration;

use serde_json::Value;

/// The numbers below which a lock-delay is read as seconds, not nanoseconds.
const SECONDS_BELOW: u64 = 1000;

/// Parses a Go duration string; `None` if it is not one.
pub(super) fn parse(text: &str) -> Option<Duration> {
    if text == "0" {
        return Some(Duration::ZERO);
    }
    let mut rest = text;
    let mut total = Duration::ZERO;
    while !rest.is_empty() {
        let number_end = rest.find(|c: char| !c.is_ascii_digit() && c != '.')?;
        let number: f64 = rest[..number_end].parse().ok()?;
        rest = &rest[number_end..];
        let unit_end = rest.find(|c: char| c.is_ascii_digit() || c == '.').unwrap_or(rest.len());
        let nanos_per_unit = match &rest[..unit_end] {
            "ns" => 1.0,
            "us" | "µs" => 1e3,
            "ms" => 1e6,
            "s" => 1e9,
            "m" => 60e9,
            "h" => 3600e9,
            _ => return None,
        };
        rest = &rest[unit_end..];
        total += Duration::from_nanos((number * nanos_per_unit) as u64);
    }
    (!text.is_empty()).then_some(total)
}

/// Reads a lock-delay: a duration string, or a number.
pub(super) fn lock_delay(value: &Value) -> Option<Duration> {
    match value {
        Value::String(text) => parse(text),
        Value::Number(number) => {
            let number = number.as_u64()?;
            Some(match number < SECONDS_BELOW {
                true => Duration::from_secs(number),
                false => Duration::from_nanos(number),
            })
        }
        _ => None,
    }
}

/// `duration` as Go prints it, for the forms Consul answers with (`10s`, `24h0m0s`, `15ms`).
pub(super) fn format(duration: Duration) -> String {
    let seconds = duration.as_secs();
    if duration.subsec_nanos() != 0 && seconds == 0 {
        return format!("{}ms", duration.as_millis());
    }
    match (seconds / 3600, seconds % 3600 / 60, seconds % 60) {
        (0, 0, s) => format!("{s}s"),
        (0, m, s) => format!("{m}m{s}s"),
        (h, m, s) => format!("{h}h{m}m{s}s"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_durations_are_read_and_printed() {
        assert_eq!(parse("10s"), Some(Duration::from_secs(10)));
        assert_eq!(parse("1m30s"), Some(Duration::from_secs(90)));
        assert_eq!(parse("15ms"), Some(Duration::from_millis(15)));
        assert_eq!(parse("0"), Some(Duration::ZERO));
        assert_eq!(parse("ten"), None);
        assert_eq!(parse(""), None);
        assert_eq!(lock_delay(&Value::from(15)), Some(Duration::from_secs(15)));
        assert_eq!(lock_delay(&Value::from(2_000_000_000u64)), Some(Duration::from_secs(2)));
        assert_eq!(format(Duration::from_secs(86_400)), "24h0m0s");
        assert_eq!(format(Duration::from_secs(10)), "10s");
    }
}
