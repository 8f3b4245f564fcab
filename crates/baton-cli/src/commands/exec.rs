//! `baton exec`: run a command only while holding a lease.

use std::process::ExitCode;

use anyhow::Context;
use baton::core::ExecutionStatus;
use baton::core::schedule::JobName;
use baton::{Acquisition, Elector, ElectorConfig, HolderId, LeaseName};
use tokio_util::sync::CancellationToken;

use super::exec_job::{Fire, Start};
use super::{child, connect, connect_leases};
use crate::cli::{ExecArgs, OnHeld};
use crate::exit;

pub async fn run(args: ExecArgs) -> anyhow::Result<ExitCode> {
    let job = args.job.as_deref().map(str::parse::<JobName>).transpose()?;
    let name: LeaseName = match (&args.lock, &job) {
        (Some(lock), _) => lock.parse()?,
        (None, Some(job)) => job.as_str().parse()?,
        (None, None) => anyhow::bail!("baton exec needs --lock NAME or --job NAME"),
    };
    let config = ElectorConfig::new(holder_id()?).with_ttl(args.ttl);
    config.validate()?;
    let (leases, fire) = match job {
        Some(job) => {
            let backend =
                connect(&args.backend).await.context("baton exec --job records the run")?;
            (backend.leases(), Some(Fire::resolve(backend.jobs(), job, &args).await?))
        }
        None => (connect_leases(&args.backend).await?, None),
    };
    let elector = Elector::new(leases, config)?;
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
    let holder = elector.config().holder.clone();
    let recorded = match &fire {
        Some(fire) => match fire.start(&holder).await {
            Ok(Start::Run(execution)) => Some(execution),
            Ok(Start::Done { message, succeeded }) => {
                let _ = guard.release().await;
                elector.shutdown().await;
                eprintln!("baton: {message}");
                return Ok(if succeeded { ExitCode::SUCCESS } else { ExitCode::from(exit::HELD) });
            }
            Err(err) => {
                let _ = guard.release().await;
                elector.shutdown().await;
                return Err(err);
            }
        },
        None => None,
    };
    let config = elector.config();
    let kill_after = (config.ttl - config.renew_deadline) / 2;
    let token = recorded.as_ref().and_then(|e| e.token).unwrap_or(guard.token());
    let mut env =
        vec![("BATON_FENCING_TOKEN", token.to_string()), ("BATON_LEASE", name.to_string())];
    if args.pass_backend {
        env.push(("BATON_BACKEND", args.backend.backend.clone()));
    }
    let beating = CancellationToken::new();
    if let (Some(fire), Some(execution)) = (&fire, &recorded) {
        env.extend(fire.env(execution));
        fire.heartbeat(&holder, execution, token, config.renew_interval, beating.clone());
    }
    let outcome = child::run(&args.command, &env, &guard.handle(), kill_after).await;
    beating.cancel();
    if let (Some(fire), Some(execution)) = (&fire, &recorded) {
        let (status, detail) = match &outcome {
            Ok(outcome) if outcome.lease_lost => {
                (ExecutionStatus::Failed, Some(format!("stopped: lease {name} was lost")))
            }
            Ok(outcome) if outcome.status.success() => (ExecutionStatus::Succeeded, None),
            Ok(outcome) => (ExecutionStatus::Failed, Some(format!("command {}", outcome.status))),
            Err(err) => (ExecutionStatus::Failed, Some(format!("{err:#}"))),
        };
        fire.complete(execution, token, status, detail).await;
    }
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
