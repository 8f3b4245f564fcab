//! How the dashboard writes instants and durations for a person.

use std::time::Duration;

use baton::StoreTime;

/// An instant as `2026-11-21 10:00:05 UTC`, to the second.
pub(crate) fn instant(at: StoreTime) -> String {
    let text = at.to_string();
    match text.get(..19) {
        Some(date_time) if text.ends_with('Z') => {
            format!("{} UTC", date_time.replacen('T', " ", 1))
        }
        _ => text,
    }
}

/// How far `at` is from `now`: `in 5 s`, `3 min ago`, `now`.
pub(crate) fn relative(at: StoreTime, now: StoreTime) -> String {
    if at > now {
        format!("in {}", duration(at.saturating_since(now)))
    } else if now.saturating_since(at) < Duration::from_secs(1) {
        "now".to_string()
    } else {
        format!("{} ago", duration(now.saturating_since(at)))
    }
}

/// A duration in its largest whole unit and the next: `850 ms`, `42 s`, `3 min 5 s`,
/// `2 h 10 min`, `4 d 3 h`.
pub(crate) fn duration(span: Duration) -> String {
    let secs = span.as_secs();
    match secs {
        0 => format!("{} ms", span.as_millis()),
        1..60 => format!("{secs} s"),
        60..3600 => format!("{} min {} s", secs / 60, secs % 60),
        3600..86400 => format!("{} h {} min", secs / 3600, secs % 3600 / 60),
        _ => format!("{} d {} h", secs / 86400, secs % 86400 / 3600),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instants_read_to_the_second_in_utc() {
        let at = StoreTime::parse("2099-01-01T00:00:00.250Z").unwrap();
        assert_eq!(instant(at), "2099-01-01 00:00:00 UTC");
    }

    #[test]
    fn relative_times_name_their_direction() {
        let now = StoreTime::from_millis(100_000);
        assert_eq!(relative(StoreTime::from_millis(105_000), now), "in 5 s");
        assert_eq!(relative(StoreTime::from_millis(99_500), now), "now");
        assert_eq!(relative(StoreTime::from_millis(0), now), "1 min 40 s ago");
        assert_eq!(duration(Duration::from_secs(2 * 86400 + 7200)), "2 d 2 h");
        assert_eq!(duration(Duration::from_millis(850)), "850 ms");
    }
}
