//! `baton bench lease` on a lease-only store (any with a floor in [`lease_floor`]): baton's
//! acquire → renew → release cycle against the store's floor ([`LeaseFloor`]) at 1 and
//! [`CLIENTS`] clients, in alternating rounds; then the graceful handover, the crash failover
//! and the idle load.

use crate::LeaseBenchArgs;
use crate::client::connect_all;
use crate::lease::{CLIENTS, ROUNDS, emit, handover_and_crash, idle_load, progress};
use crate::lease_floor::{self, LeaseFloor};
use crate::lease_only_report::{self, Pair};
use crate::lease_ops;
use crate::timed::Measured;

/// Runs the lease scenarios against the lease-only store at `args.backend`.
pub(crate) async fn run(args: &LeaseBenchArgs) -> anyhow::Result<()> {
    let url = args.backend.as_str();
    let floor = lease_floor::for_url(url)?;
    let run = format!("{:08x}", fastrand::u32(..));
    emit(&lease_only_report::header(floor.as_ref(), url, args, &run));
    let mut pairs = Vec::new();
    for clients in [1, CLIENTS] {
        pairs.push(pair(floor.as_ref(), args, &run, clients).await?);
    }
    emit(&lease_only_report::throughput(floor.as_ref(), &pairs));

    handover_and_crash(args, &run, floor.about().store, floor.about().handover).await?;

    let mut writes = floor.write_count(&run).await?;
    idle_load(args, &run, writes.as_deref_mut()).await
}

/// The floor and baton's cycles on `clients` connections, alternating round by round.
async fn pair(
    floor: &dyn LeaseFloor,
    args: &LeaseBenchArgs,
    run: &str,
    clients: usize,
) -> anyhow::Result<Pair> {
    let round = args.duration / ROUNDS;
    progress(&format!(
        "floor and lease cycles on {clients} connection(s): {ROUNDS} alternating rounds of \
         {round:?} each"
    ));
    let (mut floor_runs, mut lease_runs) = (Measured::default(), Measured::default());
    for _ in 0..ROUNDS {
        floor_runs.absorb(lease_floor::cycles(floor, run, clients, round).await?);
        let connected = connect_all(&args.backend, clients).await?;
        let samples = lease_ops::cycle_samples(connected, run, round).await?;
        lease_runs.absorb(Measured { samples, ..Measured::default() });
    }
    Ok(Pair { clients, floor: floor_runs, lease: lease_runs })
}
