//! Human renderings of durations and instants for messages and `Display`.

use std::time::Duration;

use crate::time::StoreTime;

/// A duration in the units [`parse_duration`](crate::time::parse_duration) reads back, largest
/// first: `30s`, `1m30s`, `2h`, `1s500ms`, `0s`.
pub(crate) fn duration(d: Duration) -> String {
    let mut millis = d.as_millis();
    if millis == 0 {
        return if d.is_zero() { "0s".to_string() } else { format!("{d:?}") };
    }
    let mut out = String::new();
    for (unit, size) in [("h", 3_600_000u128), ("m", 60_000), ("s", 1_000), ("ms", 1)] {
        if millis >= size {
            out.push_str(&format!("{}{unit}", millis / size));
            millis %= size;
        }
    }
    if !d.subsec_nanos().is_multiple_of(1_000_000) {
        return format!("{d:?}");
    }
    out
}

/// An instant in RFC 3339 UTC, with a fraction only when it has one: `2026-11-21T10:00:00Z`.
pub(crate) fn instant(at: StoreTime) -> String {
    match jiff::Timestamp::from_millisecond(at.as_millis()) {
        Ok(ts) => ts.to_string(),
        Err(_) => format!("{}ms", at.as_millis()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_render_in_parseable_units() {
        let cases = [
            (Duration::ZERO, "0s"),
            (Duration::from_secs(30), "30s"),
            (Duration::from_secs(90), "1m30s"),
            (Duration::from_secs(7200), "2h"),
            (Duration::from_millis(1500), "1s500ms"),
            (Duration::from_secs(30 * 86_400), "720h"),
        ];
        for (d, text) in cases {
            assert_eq!(duration(d), text);
            assert_eq!(crate::time::parse_duration(text).unwrap(), d, "{text}");
        }
        assert_eq!(duration(Duration::from_nanos(1_500_000_001)), "1.500000001s");
    }

    #[test]
    fn instants_render_without_a_zero_fraction() {
        assert_eq!(instant(StoreTime::from_millis(1_795_255_200_000)), "2026-11-21T10:00:00Z");
        assert_eq!(instant(StoreTime::from_millis(1_500)), "1970-01-01T00:00:01.5Z");
        assert_eq!(instant(StoreTime::from_millis(i64::MAX)), format!("{}ms", i64::MAX));
    }
}
