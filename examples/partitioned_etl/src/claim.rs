//! One claim of a partition: its slice of the input converted, from the last checkpoint on,
//! into the claim's own output file, named after the claim's fencing token.
//!
//! A claim resuming from a checkpoint first copies the checkpointed bytes of the previous
//! claim's file into its own (the previous file cut to the checkpointed length), then reads on
//! from the checkpointed line. A claim that lost its partition, such as one on a paused node,
//! can only go on writing to its own file, which no later claim and no output uses.

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use baton::cluster::Partition;
use serde::{Deserialize, Serialize};

use crate::error::{EtlError, from_json, io};
use crate::slices::Slice;
use crate::stream::{Position, READ_BUFFER, Stream, WRITE_BUFFER};

/// Where a later claim resumes from: the position reached and the claim whose file holds the
/// output written so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Checkpoint {
    /// The position reached.
    #[serde(flatten)]
    pub at: Position,
    /// The token of the claim that wrote the output.
    pub token: u64,
}

impl Checkpoint {
    /// The checkpoint a partition of the ETL resumes from, if it has one.
    pub fn of(partition: &Partition) -> Result<Option<Checkpoint>, EtlError> {
        let text = partition.checkpoint.as_ref();
        text.map(|text| from_json("checkpoint", text.as_str())).transpose()
    }
}

/// What a completed partition produced: its claim's file and what it holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Done {
    /// The token of the claim that completed it, which names its file.
    pub token: u64,
    /// Input lines converted.
    pub lines: u64,
    /// Rows rejected among them.
    pub rejected: u64,
    /// Output bytes.
    pub bytes: u64,
}

/// The output file of claim `token` of the partition `key`.
pub fn claim_file(dir: &Path, key: &str, token: u64) -> PathBuf {
    dir.join(format!("{key}.{token}.part"))
}

/// Whether `path` is a claim's file rather than a partition's final output.
pub(crate) fn is_claim_file(path: &Path) -> bool {
    path.extension().is_some_and(|ext| ext == "part")
}

/// A partition being converted under one claim.
pub(crate) struct Claim {
    stream: Stream<BufReader<File>, BufWriter<File>>,
    slice: Slice,
    token: u64,
}

impl Claim {
    /// Opens claim `token` of the slice `key` in `dir`, resuming from `from` if given.
    pub(crate) fn open(
        input: &Path,
        dir: &Path,
        key: &str,
        slice: Slice,
        from: Option<Checkpoint>,
        token: u64,
    ) -> Result<Claim, EtlError> {
        std::fs::create_dir_all(dir).map_err(io(dir))?;
        let path = claim_file(dir, key, token);
        let mut file = File::create(&path).map_err(io(&path))?;
        let at = match from {
            None => slice.start(),
            Some(from) => {
                copy_prefix(&claim_file(dir, key, from.token), from.at.bytes, &mut file, &path)?;
                from.at
            }
        };
        let mut reader = File::open(input).map_err(io(input))?;
        reader.seek(SeekFrom::Start(at.offset)).map_err(io(input))?;
        let reader = BufReader::with_capacity(READ_BUFFER, reader);
        let writer = BufWriter::with_capacity(WRITE_BUFFER, file);
        Ok(Claim { stream: Stream::new(reader, writer, at, input, &path), slice, token })
    }

    /// Converts the next `lines` lines of the slice (fewer at its end) and hands the output
    /// to the operating system, so that it survives this process.
    pub(crate) fn advance(&mut self, lines: u64) -> Result<(), EtlError> {
        let wanted = lines.min(self.slice.end() - self.stream.at().line);
        if self.stream.convert(wanted)? < wanted {
            return Err(EtlError::Mismatch(format!(
                "the input ended at line {} within lines {} to {}: it changed since the batch \
                 was planned",
                self.stream.at().line,
                self.slice.first,
                self.slice.end()
            )));
        }
        self.stream.flush()
    }

    /// Whether every line of the slice is converted.
    pub(crate) fn is_done(&self) -> bool {
        self.stream.at().line >= self.slice.end()
    }

    /// Lines of the slice converted.
    pub(crate) fn progress(&self) -> u64 {
        self.stream.at().line - self.slice.first
    }

    /// Where a later claim would resume from.
    pub(crate) fn checkpoint(&self) -> Checkpoint {
        Checkpoint { at: self.stream.at(), token: self.token }
    }

    /// What the claim produced.
    pub(crate) fn done(&self) -> Done {
        let at = self.stream.at();
        Done { token: self.token, lines: self.progress(), rejected: at.rejected, bytes: at.bytes }
    }
}

/// Copies the first `bytes` bytes of `from` into `to`.
fn copy_prefix(from: &Path, bytes: u64, to: &mut File, to_path: &Path) -> Result<(), EtlError> {
    let source = File::open(from).map_err(io(from))?;
    let copied = std::io::copy(&mut source.take(bytes), to).map_err(io(to_path))?;
    if copied < bytes {
        return Err(EtlError::Mismatch(format!(
            "{} holds {copied} bytes, fewer than the {bytes} its checkpoint counts",
            from.display()
        )));
    }
    Ok(())
}
