//! Where a lease lives in the tree (under the URL's chroot):
//!
//! ```text
//! /baton/clock                      touched to read the ensemble's clock
//! /baton/leases/<name>              the lease record (persistent)
//! /baton/leases/<name>/t-<holder>   the holder's term (ephemeral): czxid = token
//! /baton/leases/<name>/c-<n>        the n-th leader change (persistent), kept to a limit
//! ```
//!
//! Names are percent-encoded: every byte outside `A-Z a-z 0-9 _ -` becomes `%XX`, so a name
//! holding `/` or `.` stays one path element.

use baton_core::url::percent_decode;
use baton_core::{HolderId, LeaseName};

/// The node whose modification time is the ensemble's clock.
pub(crate) const CLOCK: &str = "/baton/clock";
/// The base node.
pub(crate) const BASE: &str = "/baton";
/// The parent of every lease record.
pub(crate) const LEASES: &str = "/baton/leases";
/// The prefix of change records.
const CHANGE: &str = "c-";
/// The prefix of term nodes.
const TERM: &str = "t-";

/// Percent-encodes `text` into one path element.
fn encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'_' | b'-' => out.push(byte as char),
            _ => out.push_str(&format!("%{byte:02X}")),
        }
    }
    out
}

/// The record node of a lease.
pub(crate) fn record(name: &LeaseName) -> String {
    format!("{LEASES}/{}", encode(name.as_str()))
}

/// The term node of `holder` under a lease's record.
pub(crate) fn term(name: &LeaseName, holder: &HolderId) -> String {
    format!("{}/{TERM}{}", record(name), encode(holder.as_str()))
}

/// The node of a lease's `generation`-th leader change.
pub(crate) fn change(name: &LeaseName, generation: u64) -> String {
    format!("{}/{CHANGE}{generation:010}", record(name))
}

/// The lease a child of [`LEASES`] stands for.
pub(crate) fn lease_of(element: &str) -> Option<LeaseName> {
    LeaseName::new(percent_decode(element)?).ok()
}

/// Whether a child of a lease record is a change record.
pub(crate) fn is_change(element: &str) -> bool {
    element.starts_with(CHANGE)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_as_one_element() {
        for text in ["settlement", "a/b", "..", "정산/매일", "x%y"] {
            let name = LeaseName::new(text).unwrap();
            let path = record(&name);
            let element = path.rsplit('/').next().unwrap();
            assert!(!element.contains('/') && !element.contains('.'), "{element}");
            assert_eq!(lease_of(element), Some(name));
        }
        assert_eq!(lease_of("%zz"), None);
    }

    #[test]
    fn change_records_sort_by_generation() {
        let name = LeaseName::new("a").unwrap();
        assert!(change(&name, 9) < change(&name, 10));
        assert!(is_change(change(&name, 1).rsplit('/').next().unwrap()));
    }
}
