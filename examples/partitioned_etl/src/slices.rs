//! Cutting the input by line ranges: one pass over the file counts the lines of each block,
//! then the block holding each cut is read again to find where its line starts.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use baton::cluster::Partition;
use serde::{Deserialize, Serialize};

use crate::error::{EtlError, from_json, io};
use crate::stream::Position;

/// The blocks the input is read in while counting its lines.
const BLOCK: usize = 1 << 20;

/// A range of input lines: one partition's work.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Slice {
    /// The first line (0 is the header).
    pub first: u64,
    /// How many lines.
    pub lines: u64,
    /// Where the first line starts in the input.
    pub offset: u64,
}

impl Slice {
    /// The slice a partition of the ETL converts, from its parameters.
    pub fn of(partition: &Partition) -> Result<Slice, EtlError> {
        from_json("partition parameters", partition.params.as_str())
    }

    /// The line after the last.
    pub fn end(&self) -> u64 {
        self.first + self.lines
    }

    /// Where a conversion of the slice starts.
    pub(crate) fn start(&self) -> Position {
        Position { line: self.first, offset: self.offset, bytes: 0, rejected: 0 }
    }
}

/// `input` cut into `count` slices of equal line counts (give or take one), in order, or into
/// one slice per line when it has fewer lines.
pub fn slices(input: &Path, count: usize) -> Result<Vec<Slice>, EtlError> {
    let counted = Counted::read(input)?;
    let lines = counted.lines();
    if lines == 0 {
        return Err(EtlError::Mismatch(format!("{} is empty", input.display())));
    }
    let count = count.max(1) as u64;
    let mut firsts: Vec<u64> = (0..count).map(|i| i * lines / count).collect();
    firsts.dedup();
    let mut file = File::open(input).map_err(io(input))?;
    let ends = firsts.iter().skip(1).copied().chain([lines]);
    let cut = firsts.iter().zip(ends).map(|(first, end)| {
        let offset = counted.line_start(&mut file, input, *first)?;
        Ok(Slice { first: *first, lines: end - first, offset })
    });
    cut.collect()
}

/// The complete lines of a file: those that end with a newline.
pub fn complete_lines(path: &Path) -> Result<u64, EtlError> {
    Counted::read(path).map(|counted| counted.newlines)
}

/// The newlines of a file, block by block.
struct Counted {
    /// The newlines before each block.
    before: Vec<u64>,
    newlines: u64,
    /// Whether the file ends with a line without a newline.
    partial: bool,
}

impl Counted {
    fn read(path: &Path) -> Result<Counted, EtlError> {
        let mut file = File::open(path).map_err(io(path))?;
        let mut buffer = vec![0; BLOCK];
        let (mut before, mut newlines, mut last) = (Vec::new(), 0u64, b'\n');
        loop {
            let read = fill(&mut file, &mut buffer).map_err(io(path))?;
            let Some(&end) = buffer[..read].last() else { break };
            before.push(newlines);
            newlines += memchr::memchr_iter(b'\n', &buffer[..read]).count() as u64;
            last = end;
        }
        Ok(Counted { before, newlines, partial: last != b'\n' })
    }

    /// The lines, a last one without a newline included.
    fn lines(&self) -> u64 {
        self.newlines + u64::from(self.partial)
    }

    /// Where line `line` (below [`Counted::lines`]) starts: after the `line`th newline, which
    /// is found by reading again the block that holds it.
    fn line_start(&self, file: &mut File, path: &Path, line: u64) -> Result<u64, EtlError> {
        if line == 0 {
            return Ok(0);
        }
        let block = self.before.partition_point(|before| *before < line) - 1;
        let offset = (block * BLOCK) as u64;
        let mut buffer = vec![0; BLOCK];
        file.seek(SeekFrom::Start(offset)).map_err(io(path))?;
        let read = fill(file, &mut buffer).map_err(io(path))?;
        let nth = (line - self.before[block] - 1) as usize;
        let newline = memchr::memchr_iter(b'\n', &buffer[..read]).nth(nth);
        let newline = newline.ok_or_else(|| {
            EtlError::Mismatch(format!("{} changed while it was read", path.display()))
        })?;
        Ok(offset + newline as u64 + 1)
    }
}

/// Reads until `buffer` is full or the file ends; answers the bytes read.
fn fill(file: &mut File, buffer: &mut [u8]) -> std::io::Result<usize> {
    let mut filled = 0;
    while filled < buffer.len() {
        match file.read(&mut buffer[filled..])? {
            0 => break,
            read => filled += read,
        }
    }
    Ok(filled)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file_of(lines: usize, newline_at_end: bool) -> tempfile::NamedTempFile {
        let mut text: String = (0..lines).map(|i| format!("line {i}\n")).collect();
        if !newline_at_end {
            text.pop();
        }
        let file = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(file.path(), text).unwrap();
        file
    }

    #[test]
    fn slices_cover_every_line_once_and_start_where_their_line_does() {
        // Over 2 MiB, so that cuts fall in later blocks too.
        let lines = 250_007;
        let file = file_of(lines, true);
        let text = std::fs::read_to_string(file.path()).unwrap();
        let cut = slices(file.path(), 7).unwrap();
        assert_eq!(cut.len(), 7);
        assert_eq!(cut[0].first, 0);
        for pair in cut.windows(2) {
            assert_eq!(pair[0].end(), pair[1].first);
            assert!(pair[0].lines.abs_diff(pair[1].lines) <= 1, "{pair:?}");
        }
        assert_eq!(cut[6].end(), lines as u64);
        for slice in &cut {
            let at = &text[slice.offset as usize..];
            assert!(at.starts_with(&format!("line {}\n", slice.first)), "{slice:?}");
        }
    }

    #[test]
    fn a_small_input_gets_fewer_slices() {
        let file = file_of(3, false);
        let cut = slices(file.path(), 8).unwrap();
        let offsets: Vec<(u64, u64)> = cut.iter().map(|s| (s.first, s.offset)).collect();
        assert_eq!(offsets, [(0, 0), (1, 7), (2, 14)]);
        assert_eq!(complete_lines(file.path()).unwrap(), 2);
        let empty = file_of(0, true);
        assert!(slices(empty.path(), 2).unwrap_err().to_string().ends_with("is empty"));
    }
}
