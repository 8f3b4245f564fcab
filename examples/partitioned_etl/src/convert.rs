//! The transformation of one line: parse the six fields, validate each, convert units and
//! formats (Unix seconds to RFC 3339, °F in tenths to °C in hundredths, percent to a ratio,
//! the sensor name to upper case). A row that fails validation becomes a flagged output row
//! naming the reason, so that every input line gives exactly one output line.

use std::io::Write;

use jiff::Timestamp;

use crate::error::EtlError;
use crate::rows::{INPUT_HEADER, STATUSES};

/// The output's first line.
pub const OUTPUT_HEADER: &str = "id,recorded_at,sensor,temperature_c,humidity,status,rejected";

/// The longest sensor name accepted.
const MAX_SENSOR: usize = 32;

/// What became of a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Converted {
    /// The header, replaced by the output's.
    Header,
    /// A valid row, converted.
    Row,
    /// A malformed row, flagged with the reason.
    Rejected,
}

/// Why a row was rejected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Defect {
    Fields,
    Id,
    Time,
    Sensor,
    Temperature,
    Humidity,
    Status,
}

impl Defect {
    /// The reason, as the output's last column says it (no commas).
    fn reason(self) -> &'static str {
        match self {
            Defect::Fields => "expected 6 fields",
            Defect::Id => "id is not a number",
            Defect::Time => "recorded_at is not a Unix time",
            Defect::Sensor => "sensor is not 1 to 32 of a-z 0-9 -",
            Defect::Temperature => "temperature_f is not like -12.3",
            Defect::Humidity => "humidity is not 0 to 100",
            Defect::Status => "status is not ok or degraded or offline",
        }
    }
}

/// Converts input line `line` (0 is the header), given without its newline, appending the
/// output line and its newline to `out`. Only a header that is not the expected one fails.
pub fn convert(line: u64, text: &[u8], out: &mut Vec<u8>) -> Result<Converted, EtlError> {
    if line == 0 {
        if text != INPUT_HEADER.as_bytes() {
            return Err(EtlError::Mismatch(format!(
                "unexpected input header {:?}: expected {INPUT_HEADER:?}",
                String::from_utf8_lossy(text)
            )));
        }
        out.extend_from_slice(OUTPUT_HEADER.as_bytes());
        out.push(b'\n');
        return Ok(Converted::Header);
    }
    let mut fields = [&b""[..]; 6];
    let mut count = 0;
    for field in text.split(|byte| *byte == b',') {
        if let Some(slot) = fields.get_mut(count) {
            *slot = field;
        }
        count += 1;
    }
    let parsed = if count == fields.len() { Reading::parse(&fields) } else { Err(Defect::Fields) };
    match parsed {
        Ok(reading) => {
            reading.write(out);
            Ok(Converted::Row)
        }
        Err(defect) => {
            // The id as given when it is a number, so that the row can be traced back.
            if let Some(id) = number(fields[0]) {
                let _ = write!(out, "{id}");
            }
            out.extend_from_slice(b",,,,,,");
            out.extend_from_slice(defect.reason().as_bytes());
            out.push(b'\n');
            Ok(Converted::Rejected)
        }
    }
}

/// A valid row.
struct Reading<'a> {
    id: u64,
    at: Timestamp,
    sensor: &'a [u8],
    centi_celsius: i64,
    percent: u64,
    status: &'a [u8],
}

impl<'a> Reading<'a> {
    fn parse(fields: &[&'a [u8]; 6]) -> Result<Self, Defect> {
        let id = number(fields[0]).ok_or(Defect::Id)?;
        let at = seconds(fields[1])
            .and_then(|seconds| Timestamp::from_second(seconds).ok())
            .ok_or(Defect::Time)?;
        let sensor = fields[2];
        let allowed = |b: &u8| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'-';
        if sensor.is_empty() || sensor.len() > MAX_SENSOR || !sensor.iter().all(allowed) {
            return Err(Defect::Sensor);
        }
        let tenths = tenths(fields[3]).ok_or(Defect::Temperature)?;
        let percent =
            number(fields[4]).filter(|percent| *percent <= 100).ok_or(Defect::Humidity)?;
        let status = fields[5];
        if !STATUSES.iter().any(|known| known.as_bytes() == status) {
            return Err(Defect::Status);
        }
        let centi_celsius = centi_celsius(tenths);
        Ok(Reading { id, at, sensor, centi_celsius, percent, status })
    }

    fn write(&self, out: &mut Vec<u8>) {
        // Writing to a Vec cannot fail.
        let _ = write!(out, "{},{},", self.id, self.at);
        out.extend(self.sensor.iter().map(u8::to_ascii_uppercase));
        let sign = if self.centi_celsius < 0 { "-" } else { "" };
        let celsius = self.centi_celsius.unsigned_abs();
        let (percent, status) = (self.percent, self.status);
        let _ = write!(
            out,
            ",{sign}{}.{:02},{}.{:02},",
            celsius / 100,
            celsius % 100,
            percent / 100,
            percent % 100
        );
        out.extend_from_slice(status);
        out.extend_from_slice(b",\n");
    }
}

/// A decimal of 1 to 19 digits, nothing else.
fn number(text: &[u8]) -> Option<u64> {
    if text.is_empty() || text.len() > 19 {
        return None;
    }
    text.iter().try_fold(0u64, |n, b| b.is_ascii_digit().then(|| n * 10 + u64::from(b - b'0')))
}

/// Whole seconds, possibly negative.
fn seconds(text: &[u8]) -> Option<i64> {
    match text.strip_prefix(b"-") {
        Some(digits) => number(digits).and_then(|n| i64::try_from(n).ok()).map(|n| -n),
        None => number(text).and_then(|n| i64::try_from(n).ok()),
    }
}

/// A temperature such as `-12.3`, in tenths: an optional minus, 1 to 4 digits, a point and one
/// digit.
fn tenths(text: &[u8]) -> Option<i64> {
    let (negative, text) = match text.strip_prefix(b"-") {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let [whole @ .., b'.', tenth] = text else { return None };
    if whole.len() > 4 || !tenth.is_ascii_digit() {
        return None;
    }
    let value = number(whole)? as i64 * 10 + i64::from(tenth - b'0');
    Some(if negative { -value } else { value })
}

/// Tenths of a degree Fahrenheit in hundredths of a degree Celsius, rounded to the nearest
/// (no value lies halfway: the divisor is odd).
fn centi_celsius(tenths: i64) -> i64 {
    let scaled = (tenths - 320) * 50;
    if scaled >= 0 { (scaled + 4) / 9 } else { (scaled - 4) / 9 }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(line: u64, text: &str) -> (Converted, String) {
        let mut out = Vec::new();
        let converted = convert(line, text.as_bytes(), &mut out).unwrap();
        (converted, String::from_utf8(out).unwrap())
    }

    #[test]
    fn valid_rows_are_converted() {
        let (converted, out) = run(1, "7,1700000049,sensor-042,98.6,45,degraded");
        assert_eq!(converted, Converted::Row);
        assert_eq!(out, "7,2023-11-14T22:14:09Z,SENSOR-042,37.00,0.45,degraded,\n");
        assert_eq!(run(1, "8,0,s,-40.0,100,ok").1, "8,1970-01-01T00:00:00Z,S,-40.00,1.00,ok,\n");
    }

    #[test]
    fn temperatures_round_to_the_nearest_hundredth() {
        let cases = [(320, 0), (2120, 10_000), (-400, -4000), (0, -1778), (321, 6), (319, -6)];
        for (tenths, expected) in cases {
            assert_eq!(centi_celsius(tenths), expected, "{tenths} tenths °F");
        }
        assert_eq!(tenths(b"-0.5"), Some(-5));
        for bad in ["12", "1.23", ".5", "-", "+1.0", "12345.0", "n/a"] {
            assert_eq!(tenths(bad.as_bytes()), None, "{bad}");
        }
    }

    #[test]
    fn malformed_rows_are_flagged_with_their_reason() {
        let cases = [
            ("9,1700000063,sensor-001,n/a,45,ok", "9,,,,,,temperature_f is not like -12.3\n"),
            ("9,1700000063,sensor-001,70.0,145,ok", "9,,,,,,humidity is not 0 to 100\n"),
            ("9,1700000063,sensor-001,70.0,45", "9,,,,,,expected 6 fields\n"),
            ("9,1700000063,sensor-001,70.0,45,ok,x", "9,,,,,,expected 6 fields\n"),
            (
                "9,1700000063,sensor-001,70.0,45,calibrating",
                "9,,,,,,status is not ok or degraded or offline\n",
            ),
            ("9,1700000063,,70.0,45,ok", "9,,,,,,sensor is not 1 to 32 of a-z 0-9 -\n"),
            ("x9,1700000063,s,70.0,45,ok", ",,,,,,id is not a number\n"),
            ("9,99999999999999999,s,70.0,45,ok", "9,,,,,,recorded_at is not a Unix time\n"),
        ];
        for (input, expected) in cases {
            assert_eq!(run(1, input), (Converted::Rejected, expected.to_string()), "{input}");
        }
    }

    #[test]
    fn the_header_is_replaced_and_checked() {
        assert_eq!(run(0, INPUT_HEADER), (Converted::Header, format!("{OUTPUT_HEADER}\n")));
        let err = convert(0, b"a,b", &mut Vec::new()).unwrap_err();
        assert!(err.to_string().starts_with("unexpected input header \"a,b\""), "{err}");
    }
}
