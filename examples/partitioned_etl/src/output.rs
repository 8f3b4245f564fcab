//! A finished batch's output: the file of each partition's completing claim, renamed
//! `KEY.csv`, and the files of claims that lost their partition removed. In key order, the
//! files' concatenation is the converted CSV.

use std::fs::File;
use std::path::{Path, PathBuf};

use baton::cluster::{ClusterStore, PartitionState};
use sha2::{Digest, Sha256};

use crate::batch::partitions;
use crate::claim::{Done, claim_file, is_claim_file};
use crate::error::{EtlError, from_json, io};
use crate::job::{Etl, blocking};

/// The output of a batch.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Output {
    /// The partitions' files, in key order.
    pub files: Vec<PathBuf>,
    /// Input lines converted, the header included.
    pub lines: u64,
    /// Rows rejected.
    pub rejected: u64,
    /// Output bytes.
    pub bytes: u64,
}

impl Output {
    /// The SHA-256 of the files' concatenation, in hex.
    pub fn sha256(&self) -> Result<String, EtlError> {
        sha256(&self.files)
    }
}

/// Collects the output of batch `batch` of `etl`, every partition of which must have
/// completed. Collecting again answers the same.
pub async fn collect(store: &dyn ClusterStore, etl: &Etl, batch: i64) -> Result<Output, EtlError> {
    let mut partitions = partitions(store, batch).await?;
    partitions.sort_by(|a, b| a.key.as_str().cmp(b.key.as_str()));
    let mut done = Vec::with_capacity(partitions.len());
    for partition in partitions {
        let result = match (partition.state, &partition.result) {
            (PartitionState::Completed, Some(result)) => result,
            (state, _) => {
                return Err(EtlError::Mismatch(format!(
                    "partition {} of batch {batch} is {state}: expected completed with a result",
                    partition.key
                )));
            }
        };
        let result: Done = from_json("partition result", result.as_str())?;
        done.push((partition.key.to_string(), result));
    }
    let dir = etl.batch_dir(batch);
    blocking(move || finalize(&dir, &done)).await
}

/// Renames each completing claim's file `KEY.csv` and removes every other claim's file.
fn finalize(dir: &Path, done: &[(String, Done)]) -> Result<Output, EtlError> {
    let mut output = Output::default();
    for (key, done) in done {
        let file = dir.join(format!("{key}.csv"));
        let claim = claim_file(dir, key, done.token);
        match std::fs::rename(&claim, &file) {
            Err(err) if err.kind() != std::io::ErrorKind::NotFound || !file.exists() => {
                return Err(io(&claim)(err));
            }
            _ => {}
        }
        let length = std::fs::metadata(&file).map_err(io(&file))?.len();
        if length != done.bytes {
            return Err(EtlError::Mismatch(format!(
                "{} holds {length} bytes: its partition's result says {}",
                file.display(),
                done.bytes
            )));
        }
        output.files.push(file);
        (output.lines, output.rejected) =
            (output.lines + done.lines, output.rejected + done.rejected);
        output.bytes += done.bytes;
    }
    for entry in std::fs::read_dir(dir).map_err(io(dir))? {
        let path = entry.map_err(io(dir))?.path();
        if is_claim_file(&path) {
            std::fs::remove_file(&path).map_err(io(&path))?;
        }
    }
    Ok(output)
}

/// The SHA-256 of the concatenation of `files`, in hex.
pub fn sha256(files: &[PathBuf]) -> Result<String, EtlError> {
    let mut hasher = Sha256::new();
    for path in files {
        let mut file = File::open(path).map_err(io(path))?;
        std::io::copy(&mut file, &mut hasher).map_err(io(path))?;
    }
    Ok(format!("{:x}", hasher.finalize()))
}
