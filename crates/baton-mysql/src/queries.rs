//! Every SQL statement of this backend, one file each under `queries/`.

macro_rules! queries {
    ($($(#[$doc:meta])* $name:ident = $file:literal;)*) => {
        $(
            $(#[$doc])*
            pub(crate) const $name: &str = include_str!(concat!("../queries/", $file));
        )*
    };
}

queries! {
    /// The server's time.
    NOW = "now.sql";
    /// Issue the next token of a name, locking its counter.
    TOKEN_NEXT = "token_next.sql";
    /// Lock and read one lease row with the server's time.
    LEASE_LOCK = "lease_lock.sql";
    /// Store the first grant of a name.
    LEASE_INSERT = "lease_insert.sql";
    /// Store a grant over a free row.
    LEASE_TAKE = "lease_take.sql";
    /// Record a grant in the history.
    LEADER_CHANGE_INSERT = "leader_change_insert.sql";
    /// Renew one lease (compare-and-set).
    LEASE_RENEW = "lease_renew.sql";
    /// Renew every listed lease of a holder.
    LEASE_RENEW_ALL = "lease_renew_all.sql";
    /// The listed leases a holder holds now.
    LEASE_HELD = "lease_held.sql";
    /// Release a lease gracefully (compare-and-set).
    LEASE_RELEASE = "lease_release.sql";
    /// Free a locked lease by force.
    LEASE_FORCE_RELEASE = "lease_force_release.sql";
    /// Read one lease row with the server's time.
    LEASE_GET = "lease_get.sql";
    /// Read every lease row by name.
    LEASE_LIST = "lease_list.sql";
    /// One page of the history of every lease.
    HISTORY_ALL = "history_all.sql";
    /// One page of the history of one lease.
    HISTORY_OF_LEASE = "history_of_lease.sql";
    /// Raise a fence (or create it).
    FENCE_RAISE = "fence_raise.sql";
    /// Read a fence's token.
    FENCE_CURRENT = "fence_current.sql";
    /// Take a lease's doorbell.
    BELL_TAKE = "bell_take.sql";
    /// Ring a lease's doorbell.
    BELL_RING = "bell_ring.sql";
    /// Wait for a lease's doorbell.
    BELL_WAIT = "bell_wait.sql";
}

/// `statement` with its `/*pairs*/` marker replaced by `count` placeholder pairs.
pub(crate) fn with_pairs(statement: &str, count: usize) -> String {
    let pairs = vec!["(?, ?)"; count].join(", ");
    statement.replace("/*pairs*/", &pairs)
}
