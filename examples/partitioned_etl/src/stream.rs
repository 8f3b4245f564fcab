//! Converting lines from a reader to a writer while counting where the conversion is: the loop
//! that partitions and the plain pass share.

use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::convert::{Converted, convert};
use crate::error::{EtlError, io};

/// The read buffer of every conversion.
pub(crate) const READ_BUFFER: usize = 256 * 1024;
/// The write buffer of every conversion.
pub(crate) const WRITE_BUFFER: usize = 64 * 1024;

/// Where a conversion is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Position {
    /// The next input line to convert (0 is the header).
    pub line: u64,
    /// Where that line starts in the input.
    pub offset: u64,
    /// Output bytes written for the lines before it.
    pub bytes: u64,
    /// Rows rejected among them.
    pub rejected: u64,
}

/// Lines from `reader` converted into `writer`; the paths name the files in errors.
pub(crate) struct Stream<R, W> {
    reader: R,
    writer: W,
    at: Position,
    input: PathBuf,
    output: PathBuf,
    line: Vec<u8>,
    row: Vec<u8>,
}

impl<R: BufRead, W: Write> Stream<R, W> {
    /// A conversion reading from `at`, where `reader` and `writer` already are.
    pub(crate) fn new(reader: R, writer: W, at: Position, input: &Path, output: &Path) -> Self {
        let (line, row) = (Vec::with_capacity(256), Vec::with_capacity(256));
        Stream { reader, writer, at, input: input.into(), output: output.into(), line, row }
    }

    /// Converts up to `max` lines; answers how many, fewer only at the end of the input.
    pub(crate) fn convert(&mut self, max: u64) -> Result<u64, EtlError> {
        let mut done = 0;
        while done < max {
            self.line.clear();
            let read = self.reader.read_until(b'\n', &mut self.line).map_err(io(&self.input))?;
            if read == 0 {
                break;
            }
            let text = self.line.strip_suffix(b"\n").unwrap_or(&self.line);
            self.row.clear();
            if convert(self.at.line, text, &mut self.row)? == Converted::Rejected {
                self.at.rejected += 1;
            }
            self.writer.write_all(&self.row).map_err(io(&self.output))?;
            self.at.line += 1;
            self.at.offset += read as u64;
            self.at.bytes += self.row.len() as u64;
            done += 1;
        }
        Ok(done)
    }

    /// Hands what is written over to the operating system.
    pub(crate) fn flush(&mut self) -> Result<(), EtlError> {
        self.writer.flush().map_err(io(&self.output))
    }

    /// Where the conversion is.
    pub(crate) fn at(&self) -> Position {
        self.at
    }
}

/// Converts the whole of `input` into `output` in a plain loop with no coordination: the
/// baseline a partitioned run is measured against and the reference its output must match.
pub fn plain(input: &Path, output: &Path) -> Result<Position, EtlError> {
    let reader = BufReader::with_capacity(READ_BUFFER, File::open(input).map_err(io(input))?);
    let file = File::create(output).map_err(io(output))?;
    let writer = BufWriter::with_capacity(WRITE_BUFFER, file);
    let mut stream = Stream::new(reader, writer, Position::default(), input, output);
    stream.convert(u64::MAX)?;
    stream.flush()?;
    Ok(stream.at())
}
