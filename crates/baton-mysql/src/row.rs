//! Decoding rows: leases and leader changes.

use std::time::Duration;

use baton_core::{
    ChangeReason, Error, ErrorKind, FencingToken, HolderId, LeaderChange, Lease, LeaseName,
    ReleaseKind, Result, StoreTime,
};
use sqlx::Row;
use sqlx::mysql::MySqlRow;

fn column<'r, T>(row: &'r MySqlRow, name: &str) -> Result<T>
where
    T: sqlx::Decode<'r, sqlx::MySql> + sqlx::Type<sqlx::MySql>,
{
    row.try_get(name).map_err(|err| {
        Error::new(ErrorKind::Internal, format!("reading column {name} from MySQL: {err}"))
    })
}

/// The error for a value read back that baton could not have stored.
pub(crate) fn corrupt(what: &str, value: &str) -> Error {
    Error::new(ErrorKind::Internal, format!("unexpected {what} {value:?} stored in MySQL"))
}

pub(crate) use baton_core::job::row::millis;

/// A lease from a row with the columns of `baton_leases`.
pub(crate) fn lease(row: &MySqlRow) -> Result<Lease> {
    let name: String = column(row, "name")?;
    let holder: Option<String> = column(row, "holder")?;
    let released: Option<String> = column(row, "released")?;
    let ttl_ms: i64 = column(row, "ttl_ms")?;
    Ok(Lease {
        name: LeaseName::new(&name).map_err(|_| corrupt("lease name", &name))?,
        holder: holder
            .map(|holder| HolderId::new(&holder).map_err(|_| corrupt("holder id", &holder)))
            .transpose()?,
        token: FencingToken::from_store(column(row, "token")?)?,
        acquired_at: StoreTime::from_millis(column(row, "acquired_at")?),
        renewed_at: StoreTime::from_millis(column(row, "renewed_at")?),
        expires_at: StoreTime::from_millis(column(row, "expires_at")?),
        ttl: Duration::from_millis(
            u64::try_from(ttl_ms).map_err(|_| corrupt("TTL", &ttl_ms.to_string()))?,
        ),
        released: released
            .map(|kind| ReleaseKind::parse(&kind).ok_or_else(|| corrupt("release kind", &kind)))
            .transpose()?,
    })
}

/// The `now_ms` column: the server's time when the row was read.
pub(crate) fn now(row: &MySqlRow) -> Result<StoreTime> {
    column(row, "now_ms").map(StoreTime::from_millis)
}

/// A record of `baton_leader_changes`.
pub(crate) fn leader_change(row: &MySqlRow) -> Result<LeaderChange> {
    let lease: String = column(row, "lease")?;
    let holder: String = column(row, "holder")?;
    let reason: String = column(row, "reason")?;
    Ok(LeaderChange {
        id: column(row, "id")?,
        lease: LeaseName::new(&lease).map_err(|_| corrupt("lease name", &lease))?,
        holder: HolderId::new(&holder).map_err(|_| corrupt("holder id", &holder))?,
        token: FencingToken::from_store(column(row, "token")?)?,
        at: StoreTime::from_millis(column(row, "changed_at")?),
        reason: ChangeReason::parse(&reason).ok_or_else(|| corrupt("change reason", &reason))?,
        previous_end: column::<Option<i64>>(row, "previous_end")?.map(StoreTime::from_millis),
    })
}
