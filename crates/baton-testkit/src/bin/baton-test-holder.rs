//! A lease holder for fault tests, run as a separate process.
//!
//! Usage: `baton-test-holder LEASE_URL LEDGER_URL LEASE TTL_MS WRITER`: the lease's store (any
//! backend, Redis included) and the SQL store of the fenced ledger (often the same URL). It
//! campaigns for the lease and,
//! while leading, appends to the fenced ledger every 50 ms, checking its lease inside each
//! append's transaction right before the entry is written (the ledger records how long the term
//! still had then). It reports on stdout, one event per line:
//! `ACQUIRED <token>`, `INVOKE <token>` before each append and after it `WROTE <token>`,
//! `REJECTED <token>` (the fence refused it), `ABANDONED <token>` (the term ended before the
//! entry was written) or `ERROR <token> <error>`; `LOST <token>`, and after each loss
//! one deliberate write with the lost token, `PROBE ACCEPTED|REJECTED <token>`, which shows what
//! the fence does with a stale writer. It prints `READY` once connected. With
//! `BATON_TEST_HOLDER_LOG` set (a tracing filter such as `debug`), it logs to stderr.
//!
//! A line `STOP` on stdin makes it stop itself with SIGSTOP right after a renewal and a write
//! completed, so that it is paused while holding no transaction open: exactly a SIGSTOP of the
//! whole process, at an instant where a SQLite file lock cannot make the pause block others.

use std::io::{BufRead, Write};
use std::time::Duration;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::Context;
use baton::{Elector, ElectorConfig, HolderId, LeaderGuard, LeaseName};
use baton_testkit::ledger::{Append, Ledger, RESOURCE};
use nix::sys::signal::{Signal, raise};

fn say(line: String) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [url, ledger_url, lease, ttl_ms, writer] = args.as_slice() else {
        anyhow::bail!("usage: baton-test-holder LEASE_URL LEDGER_URL LEASE TTL_MS WRITER");
    };
    if let Ok(filter) = std::env::var("BATON_TEST_HOLDER_LOG") {
        tracing_subscriber::fmt()
            .with_env_filter(tracing_subscriber::EnvFilter::new(filter))
            .with_writer(std::io::stderr)
            .with_ansi(false)
            .init();
    }
    let lease: LeaseName = lease.parse()?;
    let ttl = Duration::from_millis(ttl_ms.parse().context("TTL_MS")?);
    let backend = baton::connect_split(url, ledger_url).await?;
    backend.migrate().await?;
    let leases = backend.leases();
    let ledger = Ledger::open(ledger_url).await?;
    let config = ElectorConfig::new(HolderId::new(writer.clone())?).with_ttl(ttl);
    let elector = Elector::new(leases, config)?;
    let stop_requested = watch_stdin_for_stop();
    say("READY".to_string());
    loop {
        let guard = elector.acquire(&lease).await?;
        let token = guard.token();
        say(format!("ACQUIRED {token}"));
        let handle = guard.handle();
        let still_valid = move || {
            handle.ensure_valid()?;
            Ok(handle.deadline().saturating_duration_since(tokio::time::Instant::now()))
        };
        while guard.ensure_valid().is_ok() {
            say(format!("INVOKE {token}"));
            let append = tokio::select! {
                append = ledger.append(RESOURCE, writer, token, Some(&still_valid)) => append,
                () = guard.cancelled() => break,
            };
            match append {
                Ok(Append::Accepted) => say(format!("WROTE {token}")),
                Ok(Append::Rejected) => say(format!("REJECTED {token}")),
                Ok(Append::Stopped) => {
                    say(format!("ABANDONED {token}"));
                    break;
                }
                Err(err) => say(format!("ERROR {token} {err:#}")),
            }
            if stop_requested.load(Ordering::SeqCst) {
                stop_requested.store(false, Ordering::SeqCst);
                stop_after_next_renewal(&guard).await;
                continue;
            }
            tokio::select! {
                () = tokio::time::sleep(Duration::from_millis(50)) => {}
                () = guard.cancelled() => break,
            }
        }
        say(format!("LOST {token}"));
        drop(guard);
        say(probe(&ledger, writer, token).await);
    }
}

/// Sets the returned flag whenever a `STOP` line arrives on stdin. Read on a thread of its own,
/// not the runtime's blocking pool: the runtime's shutdown waits for that pool, so a read that
/// never ends would keep a holder whose campaign failed from exiting.
fn watch_stdin_for_stop() -> Arc<AtomicBool> {
    let flag = Arc::new(AtomicBool::new(false));
    let set = flag.clone();
    std::thread::spawn(move || {
        for line in std::io::stdin().lock().lines().map_while(Result::ok) {
            if line.trim() == "STOP" {
                set.store(true, Ordering::SeqCst);
            }
        }
    });
    flag
}

/// Waits until a renewal moves the deadline, then stops the whole process.
async fn stop_after_next_renewal(guard: &LeaderGuard) {
    let before = guard.deadline();
    while guard.deadline() == before && guard.ensure_valid().is_ok() {
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    say("STOPPING".to_string());
    let _ = raise(Signal::SIGSTOP);
}

/// One deliberate write with a lost token; retried while the store is unreachable, so that the
/// answer is the fence's.
async fn probe(ledger: &Ledger, writer: &str, token: baton::FencingToken) -> String {
    let mut last_error = String::new();
    for _ in 0..20 {
        match ledger.append(RESOURCE, writer, token, None).await {
            Ok(Append::Accepted) => return format!("PROBE ACCEPTED {token}"),
            Ok(Append::Rejected | Append::Stopped) => return format!("PROBE REJECTED {token}"),
            Err(err) => last_error = format!("{err:#}"),
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    format!("PROBE ERROR {last_error} {token}")
}
