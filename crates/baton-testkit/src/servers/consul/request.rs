//! What the emulation reads from a request: the route, the query, the ACL token.

use std::collections::HashMap;

use hyper::{HeaderMap, Method};

/// An endpoint of the API slice emulated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Route {
    /// `GET /v1/status/leader`.
    Leader,
    /// `PUT /v1/session/create`.
    CreateSession,
    /// `PUT /v1/session/renew/ID`.
    RenewSession(String),
    /// `PUT /v1/session/destroy/ID`.
    DestroySession(String),
    /// `GET /v1/session/info/ID`.
    SessionInfo(String),
    /// `GET`, `PUT` or `DELETE` of `/v1/kv/KEY`.
    Kv(String),
}

impl Route {
    /// The route of `method` on `path` (percent-encoded); `None` for anything not emulated.
    pub(super) fn of(method: &Method, path: &str) -> Option<Route> {
        let path = decode(path);
        let route = if let Some(key) = path.strip_prefix("/v1/kv/") {
            Route::Kv(key.to_string())
        } else if let Some(id) = path.strip_prefix("/v1/session/renew/") {
            Route::RenewSession(id.to_string())
        } else if let Some(id) = path.strip_prefix("/v1/session/destroy/") {
            Route::DestroySession(id.to_string())
        } else if let Some(id) = path.strip_prefix("/v1/session/info/") {
            Route::SessionInfo(id.to_string())
        } else if path == "/v1/session/create" {
            Route::CreateSession
        } else if path == "/v1/status/leader" {
            Route::Leader
        } else {
            return None;
        };
        let allowed = match &route {
            Route::Kv(_) => [Method::GET, Method::PUT, Method::DELETE].contains(method),
            Route::Leader | Route::SessionInfo(_) => method == Method::GET,
            _ => method == Method::PUT,
        };
        allowed.then_some(route)
    }
}

/// A request's query parameters (a flag such as `recurse` maps to an empty value).
#[derive(Debug, Default)]
pub(super) struct Query(HashMap<String, String>);

impl Query {
    /// Parses `query` (without its `?`).
    pub(super) fn parse(query: Option<&str>) -> Query {
        let pairs = query.unwrap_or_default().split('&').filter(|pair| !pair.is_empty());
        Query(
            pairs
                .map(|pair| match pair.split_once('=') {
                    Some((name, value)) => (decode(name), decode(value)),
                    None => (decode(pair), String::new()),
                })
                .collect(),
        )
    }

    /// The value of `name`, if given.
    pub(super) fn get(&self, name: &str) -> Option<&str> {
        self.0.get(name).map(String::as_str)
    }

    /// Whether `name` is given.
    pub(super) fn has(&self, name: &str) -> bool {
        self.0.contains_key(name)
    }
}

/// The ACL token a request carries: `X-Consul-Token`, a bearer `Authorization`, or `?token=`.
pub(super) fn token<'a>(headers: &'a HeaderMap, query: &'a Query) -> Option<&'a str> {
    let header = |name: &str| headers.get(name).and_then(|value| value.to_str().ok());
    header("x-consul-token")
        .or_else(|| header("authorization").and_then(|value| value.strip_prefix("Bearer ")))
        .or_else(|| query.get("token"))
}

/// `text` with its percent-escapes decoded (an invalid escape stays as it is).
fn decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        let escaped = (bytes[at] == b'%')
            .then(|| text.get(at + 1..at + 3))
            .flatten()
            .and_then(|hex| u8::from_str_radix(hex, 16).ok());
        match escaped {
            Some(byte) => {
                decoded.push(byte);
                at += 3;
            }
            None => {
                decoded.push(bytes[at]);
                at += 1;
            }
        }
    }
    String::from_utf8_lossy(&decoded).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes_and_queries_are_read_decoded() {
        let route = Route::of(&Method::PUT, "/v1/kv/baton/leases/a%2Fb");
        assert_eq!(route, Some(Route::Kv("baton/leases/a/b".into())));
        assert_eq!(Route::of(&Method::POST, "/v1/kv/x"), None);
        assert_eq!(Route::of(&Method::GET, "/v1/agent/self"), None);
        let query = Query::parse(Some("recurse&index=12&wait=5s&acquire=a%20b"));
        assert!(query.has("recurse"));
        assert_eq!((query.get("index"), query.get("acquire")), (Some("12"), Some("a b")));
    }
}
