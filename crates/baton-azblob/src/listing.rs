//! Reading the XML of a blob listing (`EnumerationResults`): each blob's name, lease state
//! and metadata, and the marker of the next page. The service's format is flat and fixed, so
//! a few lines of scanning replace an XML parser.

use std::collections::BTreeMap;

use crate::client::{LeaseState, Listed};

/// The blobs of one listing page and the next page's marker.
pub(crate) fn parse(xml: &str) -> Result<(Vec<Listed>, Option<String>), String> {
    if !xml.contains("<EnumerationResults") {
        return Err("no EnumerationResults".to_string());
    }
    let mut blobs = Vec::new();
    let mut rest = xml;
    while let Some(start) = rest.find("<Blob>") {
        let end = rest[start..].find("</Blob>").ok_or("a Blob element is not closed")? + start;
        blobs.push(blob(&rest[start + 6..end])?);
        rest = &rest[end + 7..];
    }
    let next = element(xml, "NextMarker").map(unescape).filter(|marker| !marker.is_empty());
    Ok((blobs, next))
}

fn blob(xml: &str) -> Result<Listed, String> {
    let name = element(xml, "Name").map(unescape).ok_or("a blob without a Name")?;
    let lease = LeaseState::parse(element(xml, "LeaseState").unwrap_or("available"));
    let mut metadata = BTreeMap::new();
    if let Some(mut rest) = element(xml, "Metadata") {
        while let Some(open) = rest.find('<') {
            let close = rest[open..].find('>').ok_or("a metadata element is not closed")? + open;
            let key = &rest[open + 1..close];
            let end_tag = format!("</{key}>");
            let end = rest[close..].find(&end_tag).ok_or("a metadata value is not closed")? + close;
            metadata.insert(key.to_ascii_lowercase(), unescape(&rest[close + 1..end]));
            rest = &rest[end + end_tag.len()..];
        }
    }
    Ok(Listed { name, metadata, lease })
}

/// The text of the first element `tag` in `xml` (`None` if absent or empty as `<tag />`).
fn element<'a>(xml: &'a str, tag: &str) -> Option<&'a str> {
    let open = format!("<{tag}>");
    let start = xml.find(&open)? + open.len();
    let end = xml[start..].find(&format!("</{tag}>"))? + start;
    Some(&xml[start..end])
}

fn unescape(text: &str) -> String {
    text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&amp;", "&")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_names_leases_metadata_and_the_next_marker() {
        let xml = "<?xml version=\"1.0\"?><EnumerationResults ContainerName=\"c\"><Prefix>p</Prefix>\
            <Blobs><Blob><Name>baton/lease/a&amp;b</Name><Properties><LeaseStatus>locked</LeaseStatus>\
            <LeaseState>leased</LeaseState></Properties><Metadata><batontoken>7</batontoken>\
            <batonholder>h</batonholder></Metadata></Blob><Blob><Name>baton/lease/c</Name>\
            <Properties><LeaseState>expired</LeaseState></Properties><Metadata /></Blob></Blobs>\
            <NextMarker>m1</NextMarker></EnumerationResults>";
        let (blobs, next) = parse(xml).unwrap();
        assert_eq!(blobs.len(), 2);
        assert_eq!(blobs[0].name, "baton/lease/a&b");
        assert_eq!(blobs[0].lease, LeaseState::Leased);
        assert_eq!(blobs[0].metadata.get("batontoken").map(String::as_str), Some("7"));
        assert_eq!(blobs[1].lease, LeaseState::Expired);
        assert!(blobs[1].metadata.is_empty());
        assert_eq!(next.as_deref(), Some("m1"));
        let (_, next) =
            parse("<EnumerationResults><Blobs /><NextMarker /></EnumerationResults>").unwrap();
        assert_eq!(next, None);
        assert!(parse("<html>not the service</html>").is_err());
    }
}
