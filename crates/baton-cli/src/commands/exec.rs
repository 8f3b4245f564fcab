//! `baton exec`: run a command only while holding a lease.

use std::process::ExitCode;

use anyhow::Context;
use baton::{Acquisition, Elector, ElectorConfig, HolderId, LeaseName};

use super::{child, connect};
use crate::cli::{ExecArgs, OnHeld};
use crate::exit;

pub async fn run(args: ExecArgs) -> anyhow::Result<ExitCode> {
    let name: LeaseName = args.lock.parse()?;
    let config = ElectorConfig::new(holder_id()?).with_ttl(args.ttl);
    config.validate()?;
    let backend = connect(&args.backend).await?;
    let elector = Elector::new(backend.leases(), config)?;
    let guard = match elector.try_acquire(&name).await? {
        Acquisition::Acquired(guard) => guard,
        Acquisition::Held(lease) => {
            let holder = lease.holder.map(|h| h.to_string()).unwrap_or_default();
            let message = format!(
                "lease {name} is held by {holder} (token {}) until {}",
                lease.token, lease.expires_at
            );
            match args.on_held {
                OnHeld::Skip => {
                    eprintln!("baton: {message}; skipping");
                    return Ok(ExitCode::SUCCESS);
                }
                OnHeld::Fail => {
                    eprintln!("baton: {message}");
                    return Ok(ExitCode::from(exit::HELD));
                }
                OnHeld::Wait => {
                    eprintln!("baton: {message}; waiting");
                    elector.acquire(&name).await?
                }
            }
        }
        _ => anyhow::bail!("unexpected acquisition outcome"),
    };
    let config = elector.config();
    let kill_after = (config.ttl - config.renew_deadline) / 2;
    let env =
        [("BATON_FENCING_TOKEN", guard.token().to_string()), ("BATON_LEASE", name.to_string())];
    let outcome = child::run(&args.command, &env, &guard.handle(), kill_after).await;
    if let Err(err) = guard.release().await {
        eprintln!("baton: releasing lease {name} failed ({err}); it expires by its TTL");
    }
    elector.shutdown().await;
    let outcome = outcome?;
    if outcome.lease_lost {
        eprintln!("baton: the command was stopped because lease {name} was lost");
    }
    Ok(exit_code(outcome.status))
}

/// A holder id unique to this run: host name, process id and a random suffix.
fn holder_id() -> anyhow::Result<HolderId> {
    let host = nix::unistd::gethostname().context("reading the host name")?;
    Ok(HolderId::generate(&host.to_string_lossy(), fastrand::u32(..)))
}

/// The command's exit code, or 128 + the signal that ended it, as shells report it.
fn exit_code(status: std::process::ExitStatus) -> ExitCode {
    use std::os::unix::process::ExitStatusExt;
    let code = status.code().or_else(|| status.signal().map(|s| 128 + s)).unwrap_or(1);
    ExitCode::from(u8::try_from(code).unwrap_or(1))
}
