//! A small client of the Blob service's REST API, enough for leases: blob reads and
//! conditional writes, the five lease actions, listing, and the container's properties. Each
//! request is signed with the account key (Shared Key) and sent once over the workspace's
//! HTTP/1.1 client (with TLS to an `https://` endpoint).

use std::collections::BTreeMap;
use std::sync::Arc;

use baton_core::{Error, ErrorKind, StoreTime};
use baton_http::{Answer, Endpoint, Method, Request, SecureLayer};
use bytes::Bytes;

use crate::sign::{self, Signed};
use crate::url::Target;

/// The REST API version requested; Azurite serves it, as does every Azure region.
const API_VERSION: &str = "2021-12-02";
/// The prefix of metadata headers.
const META: &str = "x-ms-meta-";

/// Why a request did not succeed.
#[derive(Debug)]
pub(crate) enum Failure {
    /// The service answered with an error: nothing was applied.
    Refused {
        /// The HTTP status.
        status: u16,
        /// The service's error code (`x-ms-error-code`), empty if it sent none.
        code: String,
    },
    /// No answer came: the request may or may not have been applied.
    Unknown(Error),
}

impl Failure {
    /// Whether the service refused with this status.
    pub(crate) fn is(&self, status: u16) -> bool {
        matches!(self, Failure::Refused { status: refused, .. } if *refused == status)
    }

    /// The failure as an error of an operation on `what`.
    pub(crate) fn into_error(self, what: &str) -> Error {
        match self {
            Failure::Unknown(err) => Error::new(err.kind(), format!("{what}: {err}")),
            Failure::Refused { status, code } => Error::new(
                ErrorKind::Unavailable,
                format!("{what}: the service answered {status} {code}"),
            ),
        }
    }
}

/// A condition on the blob's version for a write.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Condition<'a> {
    /// Whatever the blob's version.
    Any,
    /// Only if the blob's ETag is this one.
    Matches(&'a str),
    /// Only if no blob of the name exists.
    Absent,
}

/// A blob's lease as the service reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LeaseState {
    /// Never leased, or released.
    Available,
    /// Leased, and not expired.
    Leased,
    /// Leased, and its duration passed without renewal.
    Expired,
    /// Being broken (a break period runs).
    Breaking,
    /// Broken.
    Broken,
}

impl LeaseState {
    pub(crate) fn parse(text: &str) -> LeaseState {
        match text {
            "leased" => LeaseState::Leased,
            "expired" => LeaseState::Expired,
            "breaking" => LeaseState::Breaking,
            "broken" => LeaseState::Broken,
            _ => LeaseState::Available,
        }
    }

    /// Whether someone holds the lease now.
    pub(crate) fn held(self) -> bool {
        matches!(self, LeaseState::Leased | LeaseState::Breaking)
    }
}

/// A blob as read: its version, metadata, lease, and content when asked for.
#[derive(Debug, Clone)]
pub(crate) struct Blob {
    /// The blob's ETag.
    pub(crate) etag: String,
    /// The service's clock when it answered.
    pub(crate) date: StoreTime,
    /// The blob's metadata, names in lowercase.
    pub(crate) metadata: BTreeMap<String, String>,
    /// The blob's lease.
    pub(crate) lease: LeaseState,
    /// The content (empty when only the properties were read).
    pub(crate) content: Bytes,
}

/// The answer to a write.
#[derive(Debug, Clone)]
pub(crate) struct Written {
    /// The blob's ETag after the write.
    pub(crate) etag: Option<String>,
    /// The service's clock when it answered.
    pub(crate) date: StoreTime,
}

/// A lease action on one blob.
#[derive(Debug, Clone, Copy)]
pub(crate) enum LeaseAction<'a> {
    /// Acquire for this many seconds with this proposed lease ID.
    Acquire { seconds: u32, id: &'a str },
    /// Renew the lease of this ID.
    Renew { id: &'a str },
    /// Release the lease of this ID.
    Release { id: &'a str },
    /// Break whoever's lease, at once.
    Break,
}

/// One blob of a listing, with its metadata and lease.
#[derive(Debug, Clone)]
pub(crate) struct Listed {
    /// The blob's name.
    pub(crate) name: String,
    /// Its metadata, names in lowercase.
    pub(crate) metadata: BTreeMap<String, String>,
    /// Its lease.
    pub(crate) lease: LeaseState,
}

/// The client of one container.
pub(crate) struct Client {
    target: Target,
    http: Endpoint,
}

impl Client {
    /// A client of the container `target` names; nothing is sent yet.
    pub(crate) fn new(target: Target) -> Client {
        let secure = target.tls.clone().map(|tls| Arc::new(tls) as Arc<dyn SecureLayer>);
        let http = Endpoint::new(target.endpoint.address(), secure);
        Client { target, http }
    }

    /// The account, container and endpoint, for messages.
    pub(crate) fn target(&self) -> &Target {
        &self.target
    }

    fn path(&self, blob: Option<&str>) -> String {
        let container = format!("{}/{}", self.target.endpoint.base_path, self.target.container);
        match blob {
            Some(blob) => format!("{container}/{blob}"),
            None => container,
        }
    }

    /// Signs and sends one request; an error status is a [`Failure::Refused`].
    async fn call(
        &self,
        method: Method,
        blob: Option<&str>,
        query: &[(&str, String)],
        mut headers: Vec<(String, String)>,
        body: Bytes,
    ) -> Result<Answer, Failure> {
        let path = self.path(blob);
        let now = jiff::Timestamp::now();
        let date = jiff::fmt::rfc2822::DateTimePrinter::new().timestamp_to_rfc9110_string(&now);
        headers.push((
            "x-ms-date".into(),
            date.map_err(|err| Failure::Unknown(Error::new(ErrorKind::Internal, err.to_string())))?,
        ));
        headers.push(("x-ms-version".into(), API_VERSION.into()));
        if !body.is_empty() {
            headers.push(("content-length".into(), body.len().to_string()));
        } else if method == Method::Put {
            headers.push(("content-length".into(), "0".into()));
        }
        let signed = Signed {
            method: method.as_str(),
            path: &path,
            query,
            headers: &headers,
            content_length: body.len(),
        };
        let authorization = sign::authorization(&self.target.account, &self.target.key, &signed);
        headers.push(("authorization".into(), authorization));
        let query_text: Vec<String> =
            query.iter().map(|(name, value)| format!("{name}={}", encode_query(value))).collect();
        let path_and_query = match query_text.is_empty() {
            true => path,
            false => format!("{path}?{}", query_text.join("&")),
        };
        let request = headers
            .iter()
            .fold(Request::new(method, path_and_query), |request, (name, value)| {
                request.header(name, value)
            })
            .body(body);
        let timeout = self.target.timeout;
        let reply = self
            .http
            .exchange(&request, timeout, timeout)
            .await
            .map_err(|failure| self.unanswered(method, failure))?;
        match reply.status {
            200..=299 => Ok(reply),
            status => {
                let code = reply.header("x-ms-error-code").unwrap_or_default().to_string();
                Err(Failure::Refused { status, code })
            }
        }
    }

    /// A request without an answer as an error naming the request: a connection that could
    /// not be opened says `cannot connect`.
    fn unanswered(&self, method: Method, failure: baton_http::Failure) -> Failure {
        let what = format!("{} {}", method.as_str(), self.target.endpoint.display());
        Failure::Unknown(match failure {
            baton_http::Failure::Unreachable(why) => {
                Error::new(ErrorKind::Unavailable, format!("{what}: cannot connect: {why}"))
            }
            baton_http::Failure::TimedOut => Error::new(
                ErrorKind::Timeout,
                format!("{what}: no answer within {:?}", self.target.timeout),
            ),
            failure => Error::new(ErrorKind::Unavailable, format!("{what}: {failure}")),
        })
    }

    /// Reads a blob's properties and metadata (`HEAD`), and its content too with `content`;
    /// `None` if it does not exist.
    pub(crate) async fn read(&self, blob: &str, content: bool) -> Result<Option<Blob>, Failure> {
        let method = if content { Method::Get } else { Method::Head };
        match self.call(method, Some(blob), &[], Vec::new(), Bytes::new()).await {
            Ok(reply) => Ok(Some(Blob {
                etag: etag(&reply)?,
                date: date(&reply)?,
                metadata: metadata(&reply),
                lease: LeaseState::parse(reply.header("x-ms-lease-state").unwrap_or_default()),
                content: reply.body,
            })),
            Err(failure) if failure.is(404) => Ok(None),
            Err(failure) => Err(failure),
        }
    }

    /// Writes a whole block blob (content and metadata) if `condition` holds, under the lease
    /// `lease_id` if the blob is leased.
    pub(crate) async fn put(
        &self,
        blob: &str,
        content: Bytes,
        metadata: &BTreeMap<String, String>,
        condition: Condition<'_>,
        lease_id: Option<&str>,
    ) -> Result<Written, Failure> {
        let mut headers = write_headers(metadata, condition, lease_id);
        headers.push(("x-ms-blob-type".into(), "BlockBlob".into()));
        headers.push(("content-type".into(), "application/json".into()));
        let reply = self.call(Method::Put, Some(blob), &[], headers, content).await?;
        written(&reply)
    }

    /// Replaces a blob's metadata if `condition` holds, under the lease `lease_id` if leased.
    pub(crate) async fn set_metadata(
        &self,
        blob: &str,
        metadata: &BTreeMap<String, String>,
        condition: Condition<'_>,
        lease_id: Option<&str>,
    ) -> Result<Written, Failure> {
        let headers = write_headers(metadata, condition, lease_id);
        let query = [("comp", "metadata".to_string())];
        let reply = self.call(Method::Put, Some(blob), &query, headers, Bytes::new()).await?;
        written(&reply)
    }

    /// Deletes a blob, under the lease `lease_id` if leased.
    pub(crate) async fn delete(&self, blob: &str, lease_id: Option<&str>) -> Result<(), Failure> {
        let headers = write_headers(&BTreeMap::new(), Condition::Any, lease_id);
        self.call(Method::Delete, Some(blob), &[], headers, Bytes::new()).await.map(drop)
    }

    /// Acquires, renews, releases or breaks a blob's lease; an acquisition only if the blob's
    /// ETag is `if_match` when given.
    pub(crate) async fn lease(
        &self,
        blob: &str,
        action: LeaseAction<'_>,
        if_match: Option<&str>,
    ) -> Result<Written, Failure> {
        let mut headers = Vec::new();
        let (name, id) = match action {
            LeaseAction::Acquire { seconds, id } => {
                headers.push(("x-ms-lease-duration".to_string(), seconds.to_string()));
                headers.push(("x-ms-proposed-lease-id".to_string(), id.to_string()));
                ("acquire", None)
            }
            LeaseAction::Renew { id } => ("renew", Some(id)),
            LeaseAction::Release { id } => ("release", Some(id)),
            LeaseAction::Break => {
                headers.push(("x-ms-lease-break-period".to_string(), "0".to_string()));
                ("break", None)
            }
        };
        headers.push(("x-ms-lease-action".to_string(), name.to_string()));
        if let Some(id) = id {
            headers.push(("x-ms-lease-id".to_string(), id.to_string()));
        }
        if let Some(etag) = if_match {
            headers.push(("if-match".to_string(), etag.to_string()));
        }
        let query = [("comp", "lease".to_string())];
        let reply = self.call(Method::Put, Some(blob), &query, headers, Bytes::new()).await?;
        written(&reply)
    }

    /// One page of the blobs whose names start with `prefix`, with metadata, and the marker of
    /// the next page.
    pub(crate) async fn list(
        &self,
        prefix: &str,
        marker: Option<&str>,
    ) -> Result<(Vec<Listed>, Option<String>), Failure> {
        let mut query = vec![
            ("restype", "container".to_string()),
            ("comp", "list".to_string()),
            ("prefix", prefix.to_string()),
            ("include", "metadata".to_string()),
        ];
        if let Some(marker) = marker {
            query.push(("marker", marker.to_string()));
        }
        let reply = self.call(Method::Get, None, &query, Vec::new(), Bytes::new()).await?;
        let text = String::from_utf8_lossy(&reply.body);
        crate::listing::parse(&text).map_err(|why| {
            Failure::Unknown(Error::new(
                ErrorKind::Internal,
                format!("unexpected blob listing: {why}"),
            ))
        })
    }

    /// The container's properties: the service's clock, or why the container cannot be used.
    pub(crate) async fn container_date(&self) -> Result<StoreTime, Failure> {
        let query = [("restype", "container".to_string())];
        let reply = self.call(Method::Head, None, &query, Vec::new(), Bytes::new()).await?;
        date(&reply)
    }

    /// Creates the container; `Ok(false)` if it exists already.
    pub(crate) async fn create_container(&self) -> Result<bool, Failure> {
        let query = [("restype", "container".to_string())];
        match self.call(Method::Put, None, &query, Vec::new(), Bytes::new()).await {
            Ok(_) => Ok(true),
            Err(failure) if failure.is(409) => Ok(false),
            Err(failure) => Err(failure),
        }
    }
}

fn write_headers(
    metadata: &BTreeMap<String, String>,
    condition: Condition<'_>,
    lease_id: Option<&str>,
) -> Vec<(String, String)> {
    let mut headers: Vec<(String, String)> =
        metadata.iter().map(|(name, value)| (format!("{META}{name}"), value.clone())).collect();
    match condition {
        Condition::Any => {}
        Condition::Matches(etag) => headers.push(("if-match".into(), etag.into())),
        Condition::Absent => headers.push(("if-none-match".into(), "*".into())),
    }
    if let Some(id) = lease_id {
        headers.push(("x-ms-lease-id".into(), id.into()));
    }
    headers
}

fn malformed(why: &str) -> Failure {
    Failure::Unknown(Error::new(
        ErrorKind::Internal,
        format!("unexpected answer from the blob service: {why}"),
    ))
}

fn etag(reply: &Answer) -> Result<String, Failure> {
    reply.header("etag").map(str::to_string).ok_or_else(|| malformed("no ETag"))
}

/// The service's clock: its `Date` header, whole seconds.
fn date(reply: &Answer) -> Result<StoreTime, Failure> {
    let text = reply.header("date").ok_or_else(|| malformed("no Date header"))?;
    parse_date(text).ok_or_else(|| malformed(&format!("Date {text}")))
}

/// Parses an HTTP date such as `Sun, 11 Oct 2009 21:49:13 GMT`.
pub(crate) fn parse_date(text: &str) -> Option<StoreTime> {
    let timestamp = jiff::fmt::rfc2822::DateTimeParser::new().parse_timestamp(text).ok()?;
    Some(StoreTime::from_millis(timestamp.as_millisecond()))
}

fn written(reply: &Answer) -> Result<Written, Failure> {
    Ok(Written { etag: reply.header("etag").map(str::to_string), date: date(reply)? })
}

fn metadata(reply: &Answer) -> BTreeMap<String, String> {
    reply
        .headers()
        .filter_map(|(name, value)| Some((name.strip_prefix(META)?.to_string(), value.to_string())))
        .collect()
}

/// Percent-encodes a query value (everything but unreserved characters).
fn encode_query(value: &str) -> String {
    value
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_services_date() {
        let time = parse_date("Sun, 11 Oct 2009 21:49:13 GMT").unwrap();
        assert_eq!(time.as_millis(), 1_255_297_753_000);
        assert_eq!(parse_date("yesterday"), None);
    }
}
