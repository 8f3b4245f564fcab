//! `baton lease list|get|release --force`.

use anyhow::bail;
use baton::core::ForceReleaseParams;
use baton::{Lease, LeaseName, StoreTime};
use baton_server::views::{LeaseView, PageView};

use super::connect_leases;
use super::output::print_json;
use crate::cli::{LeaseCommand, Output};

pub async fn run(command: LeaseCommand, output: Output) -> anyhow::Result<()> {
    match command {
        LeaseCommand::List(backend) => {
            let store = connect_leases(&backend).await?;
            let now = store.now().await?;
            let leases = store.list().await?;
            match output {
                Output::Table => print_table(&leases, now),
                Output::Json => {
                    let items = leases.iter().map(|lease| LeaseView::at(lease, now)).collect();
                    print_json(&PageView { items, next: None })?;
                }
            }
        }
        LeaseCommand::Get { backend, name } => {
            let name: LeaseName = name.parse()?;
            let store = connect_leases(&backend).await?;
            let now = store.now().await?;
            match store.get(&name).await? {
                Some(lease) => match output {
                    Output::Table => print_table(&[lease], now),
                    Output::Json => print_json(&LeaseView::at(&lease, now))?,
                },
                None => bail!(baton::Error::new(
                    baton::ErrorKind::NotFound,
                    format!("lease {name} does not exist")
                )),
            }
        }
        LeaseCommand::Release { backend, force: _, name } => {
            let name: LeaseName = name.parse()?;
            let store = connect_leases(&backend).await?;
            match store.force_release(ForceReleaseParams { name: name.clone() }).await? {
                Some(previous) => println!(
                    "released lease {name} held by {} (token {}); the next acquisition is \
                     recorded as forced_release",
                    previous.holder.map(|h| h.to_string()).unwrap_or_default(),
                    previous.token
                ),
                None => println!("lease {name} was not held; nothing changed"),
            }
        }
    }
    Ok(())
}

fn print_table(leases: &[Lease], now: StoreTime) {
    println!("{:<32} {:<9} {:>8} {:<40} EXPIRES", "NAME", "STATE", "TOKEN", "HOLDER");
    for lease in leases {
        let holder = lease.holder.as_ref().map_or("-", |h| h.as_str());
        println!(
            "{:<32} {:<9} {:>8} {:<40} {}",
            lease.name,
            lease.state_at(now),
            lease.token,
            holder,
            lease.expires_at
        );
    }
}
