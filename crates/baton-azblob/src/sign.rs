//! Shared Key authorization: each request signed with HMAC-SHA256 under the account key, over
//! the request's method, standard headers, `x-ms-*` headers and resource, as the Blob service
//! verifies it.

use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use ring::hmac;

/// What a signature covers of one request.
pub(crate) struct Signed<'a> {
    /// `GET`, `HEAD`, `PUT` or `DELETE`.
    pub(crate) method: &'a str,
    /// The request path as sent (already percent-encoded).
    pub(crate) path: &'a str,
    /// The query parameters, decoded.
    pub(crate) query: &'a [(&'a str, String)],
    /// Every header sent besides `Authorization`, names in lowercase.
    pub(crate) headers: &'a [(String, String)],
    /// The body's length.
    pub(crate) content_length: usize,
}

/// The standard headers the string to sign lists, in its order (`Date` is left empty: requests
/// carry `x-ms-date`).
const STANDARD_HEADERS: [&str; 11] = [
    "content-encoding",
    "content-language",
    "content-length",
    "content-md5",
    "content-type",
    "date",
    "if-modified-since",
    "if-match",
    "if-none-match",
    "if-unmodified-since",
    "range",
];

/// The `Authorization` header's value for `request` by `account` with `key`.
pub(crate) fn authorization(account: &str, key: &[u8], request: &Signed<'_>) -> String {
    let text = string_to_sign(account, request);
    let tag = hmac::sign(&hmac::Key::new(hmac::HMAC_SHA256, key), text.as_bytes());
    format!("SharedKey {account}:{}", BASE64.encode(tag.as_ref()))
}

fn string_to_sign(account: &str, request: &Signed<'_>) -> String {
    let header = |name: &str| {
        request.headers.iter().find(|(key, _)| key == name).map_or("", |(_, value)| value.as_str())
    };
    let mut text = format!("{}\n", request.method);
    for name in STANDARD_HEADERS {
        match name {
            "content-length" if request.content_length > 0 => {
                text.push_str(&request.content_length.to_string());
            }
            "content-length" => {}
            _ => text.push_str(header(name)),
        }
        text.push('\n');
    }
    let mut ms_headers: Vec<_> =
        request.headers.iter().filter(|(name, _)| name.starts_with("x-ms-")).collect();
    ms_headers.sort();
    for (name, value) in ms_headers {
        text.push_str(&format!("{name}:{}\n", value.trim()));
    }
    text.push_str(&format!("/{account}{}", request.path));
    let mut query: Vec<_> = request.query.iter().collect();
    query.sort();
    for (name, value) in query {
        text.push_str(&format!("\n{}:{value}", name.to_ascii_lowercase()));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signs_the_fields_in_the_services_order() {
        let headers = vec![
            ("x-ms-version".to_string(), "2021-12-02".to_string()),
            ("x-ms-date".to_string(), "Sun, 11 Oct 2009 21:49:13 GMT".to_string()),
            ("if-match".to_string(), "\"0x1\"".to_string()),
        ];
        let query = [("restype", "container".to_string()), ("comp", "list".to_string())];
        let request = Signed {
            method: "GET",
            path: "/acct/leases",
            query: &query,
            headers: &headers,
            content_length: 0,
        };
        let expected = "GET\n\n\n\n\n\n\n\n\"0x1\"\n\n\n\n\
                        x-ms-date:Sun, 11 Oct 2009 21:49:13 GMT\nx-ms-version:2021-12-02\n\
                        /acct/acct/leases\ncomp:list\nrestype:container";
        assert_eq!(string_to_sign("acct", &request), expected);
        assert!(authorization("acct", b"key", &request).starts_with("SharedKey acct:"));
    }
}
