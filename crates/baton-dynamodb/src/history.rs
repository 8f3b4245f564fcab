//! The leader-change history: one item per grant in the lease's own partition
//! (`pk = history#NAME`), written by the granting transaction itself, in one of
//! [`HISTORY_LENGTH`] slots taken in turn, so that a lease's history never grows past them.

use aws_sdk_dynamodb::types::{Put, TransactWriteItem};
use baton_core::{
    ChangeReason, Error, ErrorKind, FencingToken, HolderId, LeaderChange, LeaseName, Result,
    StoreTime,
};

use crate::keys::{self, Item};

/// Leader changes kept per lease; a grant overwrites the oldest.
pub const HISTORY_LENGTH: u64 = 64;

/// One leader change as written.
pub(crate) struct Change<'a> {
    pub(crate) holder: &'a HolderId,
    pub(crate) token: FencingToken,
    pub(crate) at: StoreTime,
    pub(crate) reason: ChangeReason,
    pub(crate) previous_end: Option<StoreTime>,
}

impl Change<'_> {
    /// The transaction item writing this change into slot `acquisition % HISTORY_LENGTH`.
    pub(crate) fn put(
        &self,
        table: &str,
        name: &str,
        acquisition: u64,
    ) -> Result<TransactWriteItem> {
        let mut item = keys::history_slot(name, acquisition % HISTORY_LENGTH);
        item.extend([
            (keys::HOLDER.to_string(), keys::s(self.holder.as_str())),
            (keys::TOKEN.to_string(), keys::n(self.token)),
            (keys::AT.to_string(), keys::n(self.at.as_millis())),
            (keys::REASON.to_string(), keys::s(self.reason.as_str())),
        ]);
        if let Some(end) = self.previous_end {
            item.insert(keys::PREVIOUS_END.to_string(), keys::n(end.as_millis()));
        }
        let put = Put::builder()
            .table_name(table)
            .set_item(Some(item))
            .build()
            .map_err(|err| Error::new(ErrorKind::Internal, err.to_string()))?;
        Ok(TransactWriteItem::builder().put(put).build())
    }
}

/// Reads one history item of `lease`; its keyset position is its token.
pub(crate) fn read(lease: &LeaseName, item: &Item) -> Result<LeaderChange> {
    let malformed = || {
        Error::new(
            ErrorKind::Internal,
            format!("a leader change of lease {lease} is malformed: not written by baton?"),
        )
    };
    let token = FencingToken::new(keys::require_u64(item, keys::TOKEN)?)?;
    let holder = keys::get_s(item, keys::HOLDER)?.ok_or_else(malformed)?;
    let reason =
        keys::get_s(item, keys::REASON)?.and_then(ChangeReason::parse).ok_or_else(malformed)?;
    Ok(LeaderChange {
        id: token.to_store(),
        lease: lease.clone(),
        holder: HolderId::new(holder)?,
        token,
        at: StoreTime::from_millis(keys::get_i64(item, keys::AT)?.ok_or_else(malformed)?),
        reason,
        previous_end: keys::get_i64(item, keys::PREVIOUS_END)?.map(StoreTime::from_millis),
    })
}
