//! Kubernetes' two timestamps: `Time`, in whole seconds, and `MicroTime`, with exactly six
//! fractional digits (what Lease's `acquireTime` and `renewTime` are). Both are read as Go's
//! `time.Parse` reads their layouts and written in UTC, as kube-apiserver writes them.

use jiff::Timestamp;
use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The layouts, as Go names them (and kube-apiserver's decoding errors quote them).
const TIME_LAYOUT: &str = "2006-01-02T15:04:05Z07:00";
const MICRO_TIME_LAYOUT: &str = "2006-01-02T15:04:05.000000Z07:00";

/// A `metav1.Time`: an instant in whole seconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Time(Timestamp);

/// A `metav1.MicroTime`: an instant in microseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct MicroTime(Timestamp);

impl Time {
    /// Now, truncated to the second.
    pub(super) fn now() -> Time {
        Time(Timestamp::from_second(Timestamp::now().as_second()).expect("now is in range"))
    }
}

impl Serialize for Time {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(&self.0.strftime("%Y-%m-%dT%H:%M:%SZ"))
    }
}

impl<'de> Deserialize<'de> for Time {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Time, D::Error> {
        let text = String::deserialize(deserializer)?;
        let instant = parse(&text, Fraction::Optional)
            .and_then(|instant| Timestamp::from_second(instant.as_second()).ok())
            .ok_or_else(|| D::Error::custom(cannot_parse(&text, TIME_LAYOUT)))?;
        Ok(Time(instant))
    }
}

impl Serialize for MicroTime {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(&self.0.strftime("%Y-%m-%dT%H:%M:%S%.6fZ"))
    }
}

impl<'de> Deserialize<'de> for MicroTime {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<MicroTime, D::Error> {
        let text = String::deserialize(deserializer)?;
        let instant = parse(&text, Fraction::SixDigits)
            .ok_or_else(|| D::Error::custom(cannot_parse(&text, MICRO_TIME_LAYOUT)))?;
        Ok(MicroTime(instant))
    }
}

fn cannot_parse(text: &str, layout: &str) -> String {
    format!("parsing time {text:?} as {layout:?}: cannot parse {text:?} as {layout:?}")
}

/// The fractional seconds a layout takes.
#[derive(Clone, Copy, PartialEq)]
enum Fraction {
    /// None, or any number of digits after a '.'.
    Optional,
    /// A '.' and exactly six digits.
    SixDigits,
}

/// `text` as `YYYY-MM-DDTHH:MM:SS`, the fraction the layout takes, and `Z` or `±HH:MM`: the
/// instant, if it is one.
fn parse(text: &str, fraction: Fraction) -> Option<Timestamp> {
    const DATE_TIME: &[u8] = b"dddd-dd-ddTdd:dd:dd";
    let bytes = text.as_bytes();
    let shaped = bytes.len() > DATE_TIME.len()
        && DATE_TIME.iter().zip(bytes).all(|(shape, byte)| {
            if *shape == b'd' { byte.is_ascii_digit() } else { shape == byte }
        });
    if !shaped {
        return None;
    }
    let rest = &text[DATE_TIME.len()..];
    let (digits, zone) = match rest.strip_prefix('.') {
        Some(fraction) => {
            let digits = fraction.bytes().take_while(u8::is_ascii_digit).count();
            (Some(digits), &fraction[digits..])
        }
        None => (None, rest),
    };
    let fraction_ok = match fraction {
        Fraction::Optional => digits != Some(0),
        Fraction::SixDigits => digits == Some(6),
    };
    let zone = zone.as_bytes();
    let zone_ok = zone == b"Z"
        || (zone.len() == 6
            && matches!(zone[0], b'+' | b'-')
            && zone[1..3].iter().all(u8::is_ascii_digit)
            && zone[3] == b':'
            && zone[4..].iter().all(u8::is_ascii_digit));
    if !fraction_ok || !zone_ok {
        return None;
    }
    text.parse().ok()
}
