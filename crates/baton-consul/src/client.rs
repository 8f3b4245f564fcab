//! The slice of Consul's HTTP API the store uses, over one agent: sessions (create, renew,
//! destroy), KV reads (consistent, and blocking on a prefix) and KV writes (acquire, release,
//! check-and-set), each answer's `Date` read as the store's clock.
//!
//! Nothing is sent twice on its own: a request without an answer fails with an unknown outcome.

use std::time::Duration;

use baton_core::{Result, StoreTime};
use baton_http::{Answer, Endpoint, Method, Request};
use serde_json::json;

use crate::error::{failure_error, malformed, refusal};
use crate::url::Target;
use crate::wire::{Created, KvEntry, http_date};

/// How long opening a connection to the agent may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(3);
/// The time a blocking query may take beyond its `wait` (Consul adds up to a sixteenth).
const WAIT_SLACK: Duration = Duration::from_secs(5);

/// How a KV write is conditioned.
#[derive(Debug, Clone, Copy)]
pub(crate) enum KvWrite<'a> {
    /// Acquiring the key's lock for this session (or writing it again while holding it).
    Acquire(&'a str),
    /// Releasing the key's lock held by this session.
    Release(&'a str),
    /// Only if the key's `ModifyIndex` is this one.
    Cas(u64),
}

/// One Consul agent and the ACL token to show it.
pub(crate) struct Consul {
    endpoint: Endpoint,
    pub(crate) target: Target,
    token: Option<String>,
}

impl Consul {
    /// A client of the target's agent, showing `token` if given; nothing is opened yet.
    pub(crate) fn new(target: Target, token: Option<String>) -> Consul {
        Consul { endpoint: Endpoint::new(target.address.clone(), None), target, token }
    }

    /// The agent's address, for messages.
    pub(crate) fn address(&self) -> &str {
        &self.target.address
    }

    /// Sends `request` (with the ACL token) and waits up to `timeout` for the whole answer.
    async fn exchange(&self, request: Request, action: &str, timeout: Duration) -> Result<Answer> {
        let request = match &self.token {
            Some(token) => request.header("x-consul-token", token),
            None => request,
        };
        self.endpoint
            .exchange(&request, CONNECT_TIMEOUT, timeout)
            .await
            .map_err(|failure| failure_error(self.address(), action, &failure))
    }

    /// Sends `request` and reads a successful answer; a refusal is an error.
    async fn call(&self, request: Request, action: &str) -> Result<Answer> {
        let answer = self.exchange(request, action, self.target.timeout).await?;
        match answer.status {
            200 => Ok(answer),
            status => Err(refusal(self.address(), action, status, &answer.body)),
        }
    }

    /// The agent's clock when it answered.
    fn date(&self, answer: &Answer, action: &str) -> Result<StoreTime> {
        answer
            .header("date")
            .and_then(http_date)
            .ok_or_else(|| malformed(format!("{action}: no Date header to read the time from")))
    }

    /// `GET /v1/status/leader` as it comes, for the probe that checks the agent is Consul.
    pub(crate) async fn leader(&self) -> Result<Answer> {
        let action = "asking for the Consul leader";
        self.exchange(Request::new(Method::Get, "/v1/status/leader"), action, self.target.timeout)
            .await
    }

    /// The agent's clock: the `Date` of its cheapest answer.
    pub(crate) async fn now(&self) -> Result<StoreTime> {
        let action = "reading the time";
        let answer = self.call(Request::new(Method::Get, "/v1/status/leader"), action).await?;
        self.date(&answer, action)
    }

    /// Creates a session of `ttl` whose invalidation releases its keys, ended only by its TTL
    /// or a destroy (no health checks); answers its ID and when it was created.
    pub(crate) async fn create_session(
        &self,
        name: &str,
        ttl: Duration,
    ) -> Result<(String, StoreTime)> {
        let action = "creating a Consul session";
        let body = json!({
            "Name": name,
            "TTL": format!("{}s", ttl.as_secs()),
            "Behavior": "release",
            "LockDelay": format!("{}ms", self.target.lock_delay.as_millis()),
            "NodeChecks": [],
            "ServiceChecks": [],
        });
        let request = Request::new(Method::Put, "/v1/session/create").body(body.to_string());
        let answer = self.call(request, action).await?;
        let created: Created = serde_json::from_slice(&answer.body)
            .map_err(|err| malformed(format!("{action}: {err}")))?;
        Ok((created.id, self.date(&answer, action)?))
    }

    /// Renews session `id`; answers when, or `None` if the session no longer exists.
    pub(crate) async fn renew_session(&self, id: &str) -> Result<Option<StoreTime>> {
        let action = "renewing a Consul session";
        let request = Request::new(Method::Put, format!("/v1/session/renew/{}", escape(id)));
        let answer = self.exchange(request, action, self.target.timeout).await?;
        match answer.status {
            200 => Ok(Some(self.date(&answer, action)?)),
            404 => Ok(None),
            status => Err(refusal(self.address(), action, status, &answer.body)),
        }
    }

    /// Destroys session `id` (its keys are released); answers when.
    pub(crate) async fn destroy_session(&self, id: &str) -> Result<StoreTime> {
        let action = "destroying a Consul session";
        let request = Request::new(Method::Put, format!("/v1/session/destroy/{}", escape(id)));
        let answer = self.call(request, action).await?;
        self.date(&answer, action)
    }

    /// Reads `key`, consistently.
    pub(crate) async fn read(&self, key: &str) -> Result<Option<KvEntry>> {
        let action = format!("reading {key}");
        let path = format!("/v1/kv/{}?consistent", escape(key));
        let answer = self.exchange(Request::new(Method::Get, path), &action, self.target.timeout);
        let answer = answer.await?;
        match answer.status {
            200 => Ok(self.entries(&answer, &action)?.into_iter().next()),
            404 => Ok(None),
            status => Err(refusal(self.address(), &action, status, &answer.body)),
        }
    }

    /// Reads every key under `prefix` and the index of the read; with `after`, a blocking
    /// query that answers once the index passes it, or after `wait`.
    pub(crate) async fn read_prefix(
        &self,
        prefix: &str,
        after: Option<(u64, Duration)>,
    ) -> Result<(Vec<KvEntry>, u64)> {
        let action = format!("reading the keys under {prefix}");
        let mut path = format!("/v1/kv/{}?recurse", escape(prefix));
        let mut timeout = self.target.timeout;
        match after {
            Some((index, wait)) => {
                path.push_str(&format!("&index={index}&wait={}ms", wait.as_millis()));
                timeout += wait + wait / 16 + WAIT_SLACK;
            }
            None => path.push_str("&consistent"),
        }
        let answer = self.exchange(Request::new(Method::Get, path), &action, timeout).await?;
        if !matches!(answer.status, 200 | 404) {
            return Err(refusal(self.address(), &action, answer.status, &answer.body));
        }
        let index = answer.header("x-consul-index").and_then(|index| index.parse().ok());
        let index = index.ok_or_else(|| malformed(format!("{action}: no X-Consul-Index")))?;
        match answer.status {
            200 => Ok((self.entries(&answer, &action)?, index)),
            _ => Ok((Vec::new(), index)),
        }
    }

    fn entries(&self, answer: &Answer, action: &str) -> Result<Vec<KvEntry>> {
        serde_json::from_slice(&answer.body).map_err(|err| malformed(format!("{action}: {err}")))
    }

    /// Writes `value` under `key` as `how` says; answers whether it was applied, and when.
    pub(crate) async fn write(
        &self,
        key: &str,
        value: &[u8],
        how: KvWrite<'_>,
    ) -> Result<(bool, StoreTime)> {
        let action = format!("writing {key}");
        let condition = match how {
            KvWrite::Acquire(session) => format!("acquire={}", escape(session)),
            KvWrite::Release(session) => format!("release={}", escape(session)),
            KvWrite::Cas(index) => format!("cas={index}"),
        };
        let path = format!("/v1/kv/{}?{condition}", escape(key));
        let request = Request::new(Method::Put, path).body(value.to_vec());
        let answer = self.exchange(request, &action, self.target.timeout).await?;
        let text = String::from_utf8_lossy(&answer.body);
        let applied = match (answer.status, text.trim()) {
            (200, "true") => true,
            (200, "false") => false,
            // An acquire or release by a session that no longer exists.
            (500, why) if why.to_ascii_lowercase().contains("invalid session") => false,
            (200, other) => return Err(malformed(format!("{action}: {other}"))),
            (status, _) => return Err(refusal(self.address(), &action, status, &answer.body)),
        };
        Ok((applied, self.date(&answer, &action)?))
    }
}

/// `text` percent-encoded for a URL path, `/` kept.
pub(crate) fn escape(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for byte in text.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                escaped.push(char::from(byte))
            }
            other => escaped.push_str(&format!("%{other:02X}")),
        }
    }
    escaped
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_escaped_for_the_path_keeping_slashes() {
        assert_eq!(escape("baton/leases/nightly-run_1.x"), "baton/leases/nightly-run_1.x");
        assert_eq!(escape("baton/leases/a?b#c%d"), "baton/leases/a%3Fb%23c%25d");
    }
}
