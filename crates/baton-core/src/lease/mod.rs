//! Leases: names, fencing tokens, records, pure transitions and the store trait.

mod history;
mod name;
mod record;
mod sightings;
mod store;
mod token;
pub mod transition;

pub use history::{ChangeReason, HistoryParams, LeaderChange};
pub use name::{HolderId, LeaseName, MAX_NAME_BYTES};
pub use record::{Lease, ReleaseKind};
pub use sightings::Sightings;
pub use store::{
    AcquireOutcome, AcquireParams, Capabilities, ForceReleaseParams, LeaseChanges, LeaseStore,
    ReleaseParams, RenewAllOutcome, RenewAllParams, RenewParams,
};
pub use token::FencingToken;
