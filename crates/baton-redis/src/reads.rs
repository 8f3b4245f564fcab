//! Reading lease records, the index of names and the server's clock.

use baton_core::{Lease, LeaseName, Result, StoreTime};
use redis::Cmd;

use crate::error::malformed;
use crate::keys::{INDEX, LeaseKeys};
use crate::record::{self, FIELDS};
use crate::store::Inner;

/// The command reading the record of lease `name`.
fn read_record(name: &LeaseName) -> Cmd {
    let mut command = redis::cmd("HMGET");
    command.arg(LeaseKeys::of(name).record).arg(&FIELDS[..]);
    command
}

impl Inner {
    /// Reads one lease record.
    pub(crate) async fn get(&self, name: &LeaseName) -> Result<Option<Lease>> {
        let values = self.link.command(&read_record(name), format!("reading lease {name}")).await?;
        record::lease(name, values)
    }

    /// Every lease name in the index, ordered by name (byte order).
    pub(crate) async fn names(&self) -> Result<Vec<LeaseName>> {
        let mut command = redis::cmd("ZRANGE");
        command.arg(INDEX).arg(0).arg(-1);
        let names: Vec<String> = self.link.command(&command, "listing lease names").await?;
        names
            .into_iter()
            .map(|name| {
                LeaseName::new(&name)
                    .map_err(|_| malformed(format!("lease name {name:?} in {INDEX}")))
            })
            .collect()
    }

    /// Every lease record, ordered by name: the index, then every record in one round trip.
    /// A name whose record was deleted is left out.
    pub(crate) async fn list(&self) -> Result<Vec<Lease>> {
        let names = self.names().await?;
        if names.is_empty() {
            return Ok(Vec::new());
        }
        let mut pipeline = redis::pipe();
        for name in &names {
            pipeline.add_command(read_record(name));
        }
        let records: Vec<Vec<Option<String>>> =
            self.link.pipeline(&pipeline, "listing leases").await?;
        let mut leases = Vec::with_capacity(names.len());
        for (name, values) in names.iter().zip(records) {
            leases.extend(record::lease(name, values)?);
        }
        Ok(leases)
    }

    /// The server's clock (`TIME`), to the millisecond.
    pub(crate) async fn now(&self) -> Result<StoreTime> {
        let (seconds, micros): (i64, i64) =
            self.link.command(&redis::cmd("TIME"), "reading the Redis clock").await?;
        Ok(StoreTime::from_millis(seconds * 1000 + micros / 1000))
    }
}
