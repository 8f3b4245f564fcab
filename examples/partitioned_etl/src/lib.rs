//! A partitioned ETL over baton's cluster.
//!
//! A generated CSV of sensor readings ([`generate`]) is converted as one batch of a
//! partitioned job ([`Etl::job`]): the partitioner cuts the input into line ranges
//! ([`slices`]); each partition converts its lines ([`convert`]: parse, validate, convert
//! units and formats, flag malformed rows) into a file of its own claim, saving a
//! [`Checkpoint`] (line reached, output bytes written) every commit interval. A partition
//! whose node dies resumes elsewhere from its checkpoint: the new claim starts its file with
//! the checkpointed bytes of the old one and reads on from the checkpointed line, so the
//! output is the same bytes whatever crashed. [`collect`] gathers the output: in key order,
//! the partitions' files concatenate to exactly what one [`plain`] pass writes.
//!
//! ```no_run
//! # async fn example() -> Result<(), Box<dyn std::error::Error>> {
//! use partitioned_etl::{Etl, collect, finished, generate};
//! use std::time::Duration;
//!
//! let backend = baton::connect("sqlite:///tmp/etl/baton.db").await?;
//! backend.migrate().await?;
//! generate("/tmp/etl/input.csv".as_ref(), 1_000_000)?;
//! let etl = Etl {
//!     input: "/tmp/etl/input.csv".into(),
//!     out: "/tmp/etl/out".into(),
//!     partitions: 12,
//!     commit_interval: 100_000,
//! };
//! let job = "etl".parse()?;
//! let cluster = baton::cluster::Cluster::builder(backend.leases(), backend.cluster())
//!     .partitioned(etl.job(job))
//!     .start()
//!     .await?;
//! let batch = cluster.run(&"etl".parse()?).await?;
//! finished(&*backend.cluster(), batch, Duration::from_millis(200)).await?;
//! let output = collect(&*backend.cluster(), &etl, batch).await?;
//! println!("{} rows, SHA-256 {}", output.lines - 1, output.sha256()?);
//! cluster.shutdown().await;
//! # Ok(())
//! # }
//! ```

mod batch;
mod claim;
mod convert;
mod error;
mod job;
mod output;
mod rows;
mod slices;
mod stream;

pub use batch::{finished, partitions};
pub use claim::{Checkpoint, Done, claim_file};
pub use convert::{Converted, OUTPUT_HEADER, convert};
pub use error::EtlError;
pub use job::Etl;
pub use output::{Output, collect, sha256};
pub use rows::{INPUT_HEADER, generate, row};
pub use slices::{Slice, complete_lines, slices};
pub use stream::{Position, plain};
