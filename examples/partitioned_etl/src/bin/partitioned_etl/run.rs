//! A whole run: the input generated, the nodes started, one batch converted and followed to
//! its end, the output collected and, if asked, checked against a plain pass.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::Context;
use baton::Backend;
use baton::cluster::BatchState;
use partitioned_etl::{Etl, collect, generate, plain, sha256};
use tempfile::TempDir;

use crate::fleet::Fleet;
use crate::{RunArgs, node, watch};

/// Runs the example as `args` say.
pub(crate) async fn run(args: RunArgs) -> anyhow::Result<()> {
    anyhow::ensure!(
        !args.kill_one || args.nodes > 1,
        "--kill-one needs --nodes 2 or more: this process, node 0, is never killed"
    );
    // A temporary directory lives until the end of the run.
    let (dir, temporary) = working_dir(args.dir.as_deref())?;
    let url = match &args.backend {
        Some(url) => url.clone(),
        None => format!("sqlite://{}", dir.join("baton.db").display()),
    };
    anyhow::ensure!(
        args.nodes == 1 || !url.starts_with("memory:"),
        "a memory:// store lives in one process: use --nodes 1, or a SQLite or PostgreSQL URL"
    );
    let etl = args.work.etl(&dir);
    let began = Instant::now();
    let bytes = generate(&etl.input, args.rows)?;
    println!(
        "generated {} rows ({:.0} MB) in {:.1} s: {}",
        args.rows,
        bytes as f64 / 1e6,
        began.elapsed().as_secs_f64(),
        etl.input.display()
    );
    let backend = baton::connect(&url).await?;
    backend.migrate().await?;
    let (batch, elapsed) = convert(&args, &backend, &url, &dir, &etl).await?;
    let output = collect(&*backend.cluster(), &etl, batch).await?;
    let hash = output.sha256()?;
    println!(
        "batch {batch} converted {} rows ({} rejected) in {:.1} s\noutput: {} files in {}, \
         {:.0} MB, SHA-256 {hash}",
        output.lines - 1,
        output.rejected,
        elapsed.as_secs_f64(),
        output.files.len(),
        etl.batch_dir(batch).display(),
        output.bytes as f64 / 1e6,
    );
    if args.verify {
        verify(&etl, &dir, &hash)?;
    }
    if temporary.is_some() {
        println!("(the working directory was temporary and is removed: pass --dir to keep it)");
    }
    Ok(())
}

/// `dir`, created if need be, or a new temporary directory, which is removed when dropped.
fn working_dir(dir: Option<&Path>) -> anyhow::Result<(PathBuf, Option<TempDir>)> {
    match dir {
        Some(dir) => {
            std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
            Ok((dir.to_path_buf(), None))
        }
        None => {
            let temporary = tempfile::tempdir()?;
            Ok((temporary.path().to_path_buf(), Some(temporary)))
        }
    }
}

/// Starts the nodes, runs one batch to its end, killing a node on the way if asked, and
/// stops the nodes; answers the batch, which succeeded, and how long it ran.
async fn convert(
    args: &RunArgs,
    backend: &Backend,
    url: &str,
    dir: &Path,
    etl: &Etl,
) -> anyhow::Result<(i64, Duration)> {
    let mut fleet = Fleet::start(args.nodes - 1, url, dir, &args.work).await?;
    let cluster = node::start(backend, 0, etl).await?;
    let began = Instant::now();
    let batch = cluster.run(&node::job()).await?;
    println!("batch {batch} started over {} nodes on {}", args.nodes, baton::redact(url));
    let kill = args.kill_one.then_some(&mut fleet);
    let finished = watch::watch(&*backend.cluster(), batch, kill).await?;
    let elapsed = began.elapsed();
    fleet.stop().await?;
    cluster.shutdown().await;
    match finished.state {
        BatchState::Succeeded => Ok((batch, elapsed)),
        _ => anyhow::bail!("batch {batch} failed: {}", finished.failure.unwrap_or_default()),
    }
}

/// Converts the input again in one plain pass and compares the hashes.
fn verify(etl: &Etl, dir: &Path, hash: &str) -> anyhow::Result<()> {
    let reference = dir.join("plain.csv");
    let began = Instant::now();
    plain(&etl.input, &reference)?;
    let expected = sha256(&[reference])?;
    println!(
        "plain single-process pass: {:.1} s, SHA-256 {expected}",
        began.elapsed().as_secs_f64()
    );
    anyhow::ensure!(expected == hash, "the output differs from the plain pass");
    println!("verified: the output is byte-identical to the plain pass");
    Ok(())
}
