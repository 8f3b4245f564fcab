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
    /// Acquire a lease, record the leader change, answer the grant or the current row.
    LEASE_ACQUIRE = "lease_acquire.sql";
    /// Read one lease row with the server's time.
    LEASE_GET = "lease_get.sql";
    /// Read every lease row by name.
    LEASE_LIST = "lease_list.sql";
    /// Renew one lease (compare-and-set).
    LEASE_RENEW = "lease_renew.sql";
    /// Renew every listed lease of a holder.
    LEASE_RENEW_ALL = "lease_renew_all.sql";
    /// Release a lease gracefully and notify.
    LEASE_RELEASE = "lease_release.sql";
    /// Release a lease by force and notify.
    LEASE_FORCE_RELEASE = "lease_force_release.sql";
    /// The server's time.
    NOW = "now.sql";
    /// One page of the history of every lease.
    HISTORY_ALL = "history_all.sql";
    /// One page of the history of one lease.
    HISTORY_OF_LEASE = "history_of_lease.sql";
    /// Check and bump a fence.
    FENCE_CHECK_AND_BUMP = "fence_check_and_bump.sql";
    /// Read a fence's token.
    FENCE_CURRENT = "fence_current.sql";
}
