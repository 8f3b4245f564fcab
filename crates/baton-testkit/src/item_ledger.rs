//! A fenced sink for the items of partitioned batches, and its checker.
//!
//! Each partition has a fence of its own. Committing an item is one transaction that checks
//! and bumps the partition's fence with the claim's token (the fenced sink of invariant I4),
//! then writes the item unless an earlier claim already did: a claim that resumes from a
//! checkpoint redoes the items committed after it, and reading back inside the fenced
//! transaction keeps each item's effect single. A refused commit is recorded as a rejection in a
//! separate transaction.
//!
//! The checker counts each item's entries (exactly one is expected) and walks each partition's
//! entries in commit order: an entry whose token is below one accepted before it on the same
//! partition is a stale write that got through, and must never exist.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::ops::Range;

use baton::FencingToken;

use crate::history::{self, Fenced};
use crate::ledger::{Ledger, fenced_transaction, on_each_pool};

const CREATE_POSTGRES: &str = "
CREATE TABLE IF NOT EXISTS baton_test_items (
    seq BIGSERIAL PRIMARY KEY, part TEXT NOT NULL, item BIGINT NOT NULL, node TEXT NOT NULL,
    token BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS baton_test_item_rejections (
    seq BIGSERIAL PRIMARY KEY, part TEXT NOT NULL, item BIGINT NOT NULL, node TEXT NOT NULL,
    token BIGINT NOT NULL
);";

const CREATE_SQLITE: &str = "
CREATE TABLE IF NOT EXISTS baton_test_items (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, part TEXT NOT NULL, item INTEGER NOT NULL,
    node TEXT NOT NULL, token INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS baton_test_item_rejections (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, part TEXT NOT NULL, item INTEGER NOT NULL,
    node TEXT NOT NULL, token INTEGER NOT NULL
);";

const CREATE_MYSQL: &str = "
CREATE TABLE IF NOT EXISTS baton_test_items (
    seq BIGINT AUTO_INCREMENT PRIMARY KEY, part VARCHAR(200) NOT NULL, item BIGINT NOT NULL,
    node VARCHAR(100) NOT NULL, token BIGINT NOT NULL
) ENGINE = InnoDB;
CREATE TABLE IF NOT EXISTS baton_test_item_rejections (
    seq BIGINT AUTO_INCREMENT PRIMARY KEY, part VARCHAR(200) NOT NULL, item BIGINT NOT NULL,
    node VARCHAR(100) NOT NULL, token BIGINT NOT NULL
) ENGINE = InnoDB;";

/// Finds the item's entry, if an earlier claim wrote it: read after the fence, whose lock orders
/// the writers of a partition, so the read and the insert after it cannot interleave with
/// another's.
const FIND: &str = "SELECT seq FROM baton_test_items WHERE part = ? AND item = ?";

/// [`FIND`] in PostgreSQL's placeholders.
const FIND_POSTGRES: &str = "SELECT seq FROM baton_test_items WHERE part = $1 AND item = $2";

const INSERT: &str = "INSERT INTO baton_test_items (part, item, node, token) VALUES (?, ?, ?, ?)";

const INSERT_POSTGRES: &str =
    "INSERT INTO baton_test_items (part, item, node, token) VALUES ($1, $2, $3, $4)";

const REJECT: &str =
    "INSERT INTO baton_test_item_rejections (part, item, node, token) VALUES (?, ?, ?, ?)";

const REJECT_POSTGRES: &str =
    "INSERT INTO baton_test_item_rejections (part, item, node, token) VALUES ($1, $2, $3, $4)";

const ENTRIES: &str = "SELECT part, item, token FROM baton_test_items ORDER BY seq";

const REJECTED: &str = "SELECT count(*) FROM baton_test_item_rejections";

/// What became of one item's commit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Commit {
    /// The fence accepted the token and the item was written.
    Written,
    /// The fence accepted the token; an earlier claim had written the item already.
    Redone,
    /// The fence refused the token as stale; nothing was written but the rejection.
    Rejected,
}

/// One committed entry: an item of a partition, under a claim's token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry {
    /// The item.
    pub item: u64,
    /// The token of the claim that wrote it.
    pub token: u64,
}

/// What the checker found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ItemReport {
    /// Each partition's entries, in commit order.
    pub entries: BTreeMap<String, Vec<Entry>>,
    /// Commits refused by a fence.
    pub rejected: u64,
    /// Entries committed with a token lower than one committed before them on the same
    /// partition (must be 0).
    pub stale_accepted: u64,
}

impl ItemReport {
    /// Every entry.
    pub fn accepted(&self) -> usize {
        self.entries.values().map(Vec::len).sum()
    }

    /// Items committed more than once: every entry after the first of its item.
    pub fn duplicates(&self) -> u64 {
        let distinct: usize = self
            .entries
            .values()
            .map(|entries| entries.iter().map(|e| e.item).collect::<HashSet<_>>().len())
            .sum();
        (self.accepted() - distinct) as u64
    }

    /// The items of `part` not on the ledger exactly once, with their count: those of `range`
    /// missing (0) or repeated, and any outside it.
    pub fn not_once(&self, part: &str, range: Range<u64>) -> Vec<(u64, usize)> {
        let mut counts: BTreeMap<u64, usize> = range.clone().map(|item| (item, 0)).collect();
        for entry in self.entries.get(part).into_iter().flatten() {
            *counts.entry(entry.item).or_default() += 1;
        }
        counts.into_iter().filter(|(item, count)| *count != 1 || !range.contains(item)).collect()
    }

    /// The report on `entries`, each a partition's entry in commit order, and `rejected`
    /// refusals.
    fn new(entries: impl IntoIterator<Item = (String, Entry)>, rejected: u64) -> Self {
        let mut report = ItemReport { rejected, ..Default::default() };
        let mut highest: HashMap<String, u64> = HashMap::new();
        for (part, entry) in entries {
            let fence = highest.entry(part.clone()).or_default();
            if entry.token < *fence {
                report.stale_accepted += 1;
            }
            *fence = (*fence).max(entry.token);
            report.entries.entry(part).or_default().push(entry);
        }
        report
    }
}

/// The item sink on a SQL store, on the connections of a [`Ledger`].
#[derive(Debug, Clone)]
pub struct ItemLedger(Ledger);

impl ItemLedger {
    /// Connects to the sink on the store at `url`, whose baton schema is migrated and whose
    /// tables exist (see [`ItemLedger::create`]).
    pub async fn connect(url: &str) -> anyhow::Result<Self> {
        Ok(ItemLedger(Ledger::connect(url).await?))
    }

    /// Connects and creates the sink's tables. Run it once before the writers start.
    pub async fn create(url: &str) -> anyhow::Result<Self> {
        let ledger = ItemLedger::connect(url).await?;
        let tables = match &ledger.0 {
            Ledger::Postgres(_) => CREATE_POSTGRES,
            Ledger::Sqlite(_) => CREATE_SQLITE,
            Ledger::Mysql(_) => CREATE_MYSQL,
        };
        on_each_pool!(&ledger.0, pool => {
            sqlx::raw_sql(tables).execute(pool).await?;
        });
        Ok(ledger)
    }

    /// Commits `item` of partition `part` by `node` under `token`, through the partition's
    /// fence.
    pub async fn commit(
        &self,
        part: &str,
        item: u64,
        node: &str,
        token: FencingToken,
    ) -> anyhow::Result<Commit> {
        let fence = format!("items/{part}");
        let item = i64::try_from(item)?;
        let (find, insert, reject) = match &self.0 {
            Ledger::Postgres(_) => (FIND_POSTGRES, INSERT_POSTGRES, REJECT_POSTGRES),
            Ledger::Sqlite(_) | Ledger::Mysql(_) => (FIND, INSERT, REJECT),
        };
        // The item is written unless an earlier claim wrote it: `Some(true)` when written.
        let written = fenced_transaction!(&self.0, &fence, token, tx => {
            let found: Option<i64> =
                sqlx::query_scalar(find).bind(part).bind(item).fetch_optional(&mut *tx).await?;
            if found.is_none() {
                let insert = sqlx::query(insert).bind(part).bind(item).bind(node);
                insert.bind(token.to_store()).execute(&mut *tx).await?;
            }
            tx.commit().await?;
            found.is_none()
        });
        match written {
            Some(true) => Ok(Commit::Written),
            Some(false) => Ok(Commit::Redone),
            None => {
                on_each_pool!(&self.0, pool => {
                    let rejection = sqlx::query(reject).bind(part).bind(item).bind(node);
                    rejection.bind(token.to_store()).execute(pool).await?;
                });
                Ok(Commit::Rejected)
            }
        }
    }

    /// Reads and checks the whole sink.
    pub async fn check(&self) -> anyhow::Result<ItemReport> {
        let (entries, rejected): (Vec<(String, i64, i64)>, i64) = on_each_pool!(&self.0, pool => (
            sqlx::query_as(ENTRIES).fetch_all(pool).await?,
            sqlx::query_scalar(REJECTED).fetch_one(pool).await?,
        ));
        let entries = entries.into_iter().map(|(part, item, token)| {
            anyhow::Ok((part, Entry { item: u64::try_from(item)?, token: u64::try_from(token)? }))
        });
        let entries = entries.collect::<anyhow::Result<Vec<_>>>()?;
        let report = ItemReport::new(entries, u64::try_from(rejected)?);
        let found = Fenced {
            accepted: report.accepted() as u64,
            rejected: report.rejected,
            stale_accepted: report.stale_accepted,
            late: 0,
            duplicates: report.duplicates(),
        };
        history::fenced("items", found);
        Ok(report)
    }
}

#[cfg(test)]
mod tests {
    use super::{Entry, ItemReport};

    #[test]
    fn the_checker_judges_each_partition_on_its_own() {
        let entries =
            [("p0", 0, 5), ("p1", 10, 7), ("p0", 1, 5), ("p0", 2, 9), ("p1", 12, 6), ("p0", 1, 4)];
        let entries = entries.map(|(part, item, token)| (part.to_string(), Entry { item, token }));
        let report = ItemReport::new(entries, 3);
        assert_eq!((report.accepted(), report.rejected, report.stale_accepted), (6, 3, 2));
        assert_eq!(report.not_once("p0", 0..4), [(1, 2), (3, 0)]);
        assert_eq!(report.not_once("p1", 10..12), [(11, 0), (12, 1)]);
    }
}
