//! Leases: names, fencing tokens, records, pure transitions and the store trait.

mod history;
mod name;
mod record;
mod remembered;
mod renew_each;
mod sightings;
mod store;
mod token;
pub mod transition;
mod ttl_range;
mod written;

pub use history::{ChangeReason, HistoryParams, LeaderChange};
pub use name::{HolderId, LeaseName, MAX_NAME_BYTES};
pub use record::{Lease, ReleaseKind};
pub use remembered::Remembered;
pub use renew_each::renew_each;
pub use sightings::Sightings;
pub use store::{
    AcquireOutcome, AcquireParams, Capabilities, ForceReleaseParams, LeaseChanges, LeaseStore,
    ReleaseParams, RenewAllOutcome, RenewAllParams, RenewParams,
};
pub use token::FencingToken;
pub use ttl_range::TtlRange;
pub use written::{TermRecord, Written};
