//! Fencing tokens: a counter item per lease (`pk = token`), raised by the same transaction that
//! writes the new term, so that a token is issued exactly when a term is granted.
//!
//! The counter is another item than the lease's: deleting the lease item (an operator cleaning
//! up the table) keeps it, and the next grant still issues a greater token. A token is
//!
//! ```text
//! token = max(highest + 1, the acquiring process's wall clock in microseconds)
//! ```
//!
//! where `highest` is the greater of the counter and the token on the lease item. While the
//! table keeps its items, the counter alone makes tokens rise, whatever the clocks say. The
//! clock term covers the loss of every item (a table deleted and created again, restored from
//! an old backup, or an emulator restarted): the next token is still above every earlier one,
//! provided the acquiring process's clock is not behind the clocks of the earlier acquirers by
//! more than the time elapsed since their acquisitions.

use aws_sdk_dynamodb::types::{TransactWriteItem, Update};
use baton_core::{Error, ErrorKind, FencingToken, Result};

use crate::keys::{self, Item};
use crate::record::Record;

/// A lease's token counter as read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Counter {
    /// The highest token issued (0 before the first).
    pub(crate) token: u64,
    /// How many grants it counted: where the next leader change goes in the history.
    pub(crate) acquisitions: u64,
    /// Whether the item exists.
    exists: bool,
}

impl Counter {
    /// Reads the counter item, absent before the lease's first grant.
    pub(crate) fn read(item: Option<&Item>) -> Result<Counter> {
        let Some(item) = item else { return Ok(Counter::default()) };
        Ok(Counter {
            token: keys::get_u64(item, keys::TOKEN)?.unwrap_or(0),
            acquisitions: keys::get_u64(item, keys::ACQUISITIONS)?.unwrap_or(0),
            exists: true,
        })
    }

    /// The token of the next grant, given the lease as read and the wall clock in
    /// microseconds.
    pub(crate) fn next(&self, record: Option<&Record>, clock_micros: u64) -> Result<FencingToken> {
        let highest = self.token.max(record.map_or(0, |record| record.token.get()));
        let next = highest.checked_add(1).ok_or_else(|| {
            Error::new(ErrorKind::Internal, "the fencing-token counter is exhausted")
        })?;
        FencingToken::new(next.max(clock_micros))
    }

    /// The transaction item raising the counter to `token`, provided it is still as read.
    pub(crate) fn raise(
        &self,
        table: &str,
        name: &str,
        token: FencingToken,
    ) -> Result<TransactWriteItem> {
        let mut update = Update::builder()
            .table_name(table)
            .set_key(Some(keys::counter(name)))
            .update_expression("SET #token = :token, #acquisitions = :acquisitions")
            .expression_attribute_values(":token", keys::n(token))
            .expression_attribute_values(":acquisitions", keys::n(self.acquisitions + 1));
        update = match self.exists {
            true => update
                .condition_expression("#token = :read")
                .set_expression_attribute_names(Some(keys::names(&[
                    keys::TOKEN,
                    keys::ACQUISITIONS,
                ])))
                .expression_attribute_values(":read", keys::n(self.token)),
            false => update
                .condition_expression("attribute_not_exists(#pk)")
                .set_expression_attribute_names(Some(keys::names(&[
                    keys::PK,
                    keys::TOKEN,
                    keys::ACQUISITIONS,
                ]))),
        };
        let update =
            update.build().map_err(|err| Error::new(ErrorKind::Internal, err.to_string()))?;
        Ok(TransactWriteItem::builder().update(update).build())
    }
}

/// This process's wall clock in microseconds since the epoch (0 before it).
pub(crate) fn clock_micros() -> u64 {
    u64::try_from(jiff::Timestamp::now().as_microsecond()).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_next_token_is_above_the_counter_the_record_and_the_clock() {
        let counter = Counter { token: 50, acquisitions: 3, exists: true };
        assert_eq!(counter.next(None, 10).unwrap().get(), 51);
        assert_eq!(counter.next(None, 900).unwrap().get(), 900);
        let fresh = Counter::default();
        assert_eq!(fresh.next(None, 0).unwrap().get(), 1, "a clock before the epoch");
        let exhausted = Counter { token: u64::MAX, ..counter };
        assert!(exhausted.next(None, 0).is_err());
    }
}
