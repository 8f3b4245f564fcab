//! The input: a CSV of sensor readings, each row drawn from a generator seeded with its row
//! number, so that the same row count always gives the same bytes. About one row in twenty is
//! malformed in one of five ways.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use crate::error::{EtlError, io};

/// The input's first line.
pub const INPUT_HEADER: &str = "id,recorded_at,sensor,temperature_f,humidity,status";

/// Seconds since the Unix epoch of the first reading; readings are about 7 s apart.
const FIRST_READING: i64 = 1_700_000_000;

/// The statuses a sensor reports.
pub(crate) const STATUSES: [&str; 3] = ["ok", "degraded", "offline"];

/// Writes the header and `rows` rows to `path`, replacing it; answers the bytes written.
pub fn generate(path: &Path, rows: u64) -> Result<u64, EtlError> {
    let file = File::create(path).map_err(io(path))?;
    let mut out = BufWriter::with_capacity(1 << 20, file);
    let mut line = Vec::with_capacity(128);
    let mut bytes = INPUT_HEADER.len() as u64 + 1;
    writeln!(out, "{INPUT_HEADER}").map_err(io(path))?;
    for id in 1..=rows {
        line.clear();
        row(id, &mut line);
        bytes += line.len() as u64;
        out.write_all(&line).map_err(io(path))?;
    }
    out.flush().map_err(io(path))?;
    Ok(bytes)
}

/// Appends row `id` (from 1), newline included.
pub fn row(id: u64, out: &mut Vec<u8>) {
    let mut rng = fastrand::Rng::with_seed(id);
    let at = FIRST_READING + 7 * id as i64 + rng.i64(0..7);
    let sensor = rng.u32(0..1000);
    let tenths = rng.i32(-400..=1200);
    let humidity = rng.u32(0..=100);
    let status = STATUSES[rng.usize(..STATUSES.len())];
    let (sign, tenths) = if tenths < 0 { ("-", -tenths) } else { ("", tenths) };
    let temperature = format!("{sign}{}.{}", tenths / 10, tenths % 10);
    // Writing to a Vec cannot fail.
    let _ = match rng.u32(0..100) {
        0 => writeln!(out, "{id},{at},sensor-{sensor:03},n/a,{humidity},{status}"),
        1 => {
            writeln!(out, "{id},{at},sensor-{sensor:03},{temperature},{},{status}", 101 + humidity)
        }
        2 => writeln!(out, "{id},{at},sensor-{sensor:03},{temperature},{humidity}"),
        3 => writeln!(out, "{id},{at},sensor-{sensor:03},{temperature},{humidity},calibrating"),
        4 => writeln!(out, "{id},{at},,{temperature},{humidity},{status}"),
        _ => writeln!(out, "{id},{at},sensor-{sensor:03},{temperature},{humidity},{status}"),
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_depend_on_their_number_only() {
        let (mut a, mut b) = (Vec::new(), Vec::new());
        row(42, &mut a);
        row(42, &mut b);
        assert_eq!(a, b);
        let text = String::from_utf8(a).unwrap();
        assert!(text.starts_with("42,1700000"), "{text}");
        assert!(text.ends_with('\n'));
    }

    #[test]
    fn about_one_row_in_twenty_is_malformed() {
        let mut line = Vec::new();
        let malformed = (1..=10_000)
            .filter(|id| {
                line.clear();
                row(*id, &mut line);
                let text = std::str::from_utf8(&line).unwrap();
                let fields: Vec<&str> = text.trim_end().split(',').collect();
                fields.len() != 6
                    || fields[2].is_empty()
                    || fields[3] == "n/a"
                    || fields[4].parse::<u32>().unwrap() > 100
                    || !STATUSES.contains(&fields[5])
            })
            .count();
        assert!((400..600).contains(&malformed), "{malformed} malformed rows of 10,000");
    }
}
