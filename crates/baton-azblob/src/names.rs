//! Names in the container: each lease is the blob `baton/lease/NAME` (the name escaped to
//! letters, digits and hyphens, so that any lease name is a valid blob name and URL path), the
//! token epochs are the blob `baton/epoch`, and each term's lease ID is derived from its
//! lease, holder and token.

use baton_core::{FencingToken, HolderId, LeaseName};
use ring::digest;

/// The prefix of every lease blob.
pub(crate) const LEASE_PREFIX: &str = "baton/lease/";
/// The blob whose metadata counts token epochs.
pub(crate) const EPOCH_BLOB: &str = "baton/epoch";

/// Escapes text to letters, digits and hyphens: every other byte becomes `_` and two
/// lowercase hex digits.
pub(crate) fn escape(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for byte in text.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' => escaped.push(byte as char),
            _ => escaped.push_str(&format!("_{byte:02x}")),
        }
    }
    escaped
}

/// Reverses [`escape`]; `None` if `text` is not an escaped UTF-8 string.
pub(crate) fn unescape(text: &str) -> Option<String> {
    let mut bytes = Vec::with_capacity(text.len());
    let mut rest = text.as_bytes();
    while let Some((&byte, tail)) = rest.split_first() {
        match byte {
            b'_' => {
                let hex = std::str::from_utf8(tail.get(..2)?).ok()?;
                bytes.push(u8::from_str_radix(hex, 16).ok()?);
                rest = &tail[2..];
            }
            _ => {
                bytes.push(byte);
                rest = tail;
            }
        }
    }
    String::from_utf8(bytes).ok()
}

/// The blob of a lease.
pub(crate) fn blob_name(name: &LeaseName) -> String {
    format!("{LEASE_PREFIX}{}", escape(name.as_str()))
}

/// The lease name of a lease blob; `None` for blobs that are not baton's.
pub(crate) fn lease_name(blob: &str) -> Option<LeaseName> {
    LeaseName::new(unescape(blob.strip_prefix(LEASE_PREFIX)?)?).ok()
}

/// The lease ID of the term of `holder` on `name` under `token`: a GUID from a SHA-256 of the
/// three, so that renewing and releasing need nothing but the term itself.
pub(crate) fn lease_id(name: &LeaseName, holder: &HolderId, token: FencingToken) -> String {
    let text = format!("{}\n{}\n{}", name.as_str(), holder.as_str(), token.get());
    let hash = digest::digest(&digest::SHA256, text.as_bytes());
    let mut bytes = [0u8; 16];
    bytes.copy_from_slice(&hash.as_ref()[..16]);
    bytes[6] = (bytes[6] & 0x0f) | 0x80;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!("{}-{}-{}-{}-{}", &hex[..8], &hex[8..12], &hex[12..16], &hex[16..20], &hex[20..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_lease_name_round_trips_through_its_blob_name() {
        for text in ["settlement", "a/b.c_d", "정산/매일", "x-1"] {
            let name = LeaseName::new(text).unwrap();
            let blob = blob_name(&name);
            assert!(
                blob[LEASE_PREFIX.len()..]
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
            );
            assert_eq!(lease_name(&blob), Some(name));
        }
        assert_eq!(blob_name(&LeaseName::new("settlement").unwrap()), "baton/lease/settlement");
        assert_eq!(lease_name(EPOCH_BLOB), None);
    }

    #[test]
    fn lease_ids_are_guids_that_differ_by_term() {
        let name = LeaseName::new("job").unwrap();
        let holder = HolderId::new("node-1").unwrap();
        let one = lease_id(&name, &holder, FencingToken::new(1).unwrap());
        let two = lease_id(&name, &holder, FencingToken::new(2).unwrap());
        assert_eq!(one.len(), 36);
        assert_eq!(one.matches('-').count(), 4);
        assert_ne!(one, two);
        assert_eq!(one, lease_id(&name, &holder, FencingToken::new(1).unwrap()));
    }
}
