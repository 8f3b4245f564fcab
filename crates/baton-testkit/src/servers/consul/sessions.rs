//! Sessions as Consul's session endpoints create, renew, destroy and describe them; a TTL from
//! 10 s to 24 h, a behavior, a lock-delay (15 s unless given, at most 60 s).

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::duration;
use super::state::{Behavior, Session, State};

/// The shortest session TTL Consul accepts (its default `session_ttl_min`).
const TTL_MIN: Duration = Duration::from_secs(10);
/// The longest session TTL Consul accepts.
const TTL_MAX: Duration = Duration::from_secs(24 * 3600);
/// The lock-delay of a session that names none.
const DEFAULT_LOCK_DELAY: Duration = Duration::from_secs(15);
/// The longest lock-delay Consul keeps.
const MAX_LOCK_DELAY: Duration = Duration::from_secs(60);
/// The node every session is created on.
pub(super) const NODE: &str = "baton-consul-emulation";

/// A create request Consul refuses, with its message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Invalid(pub(super) String);

impl State {
    /// Creates a session from a `PUT /v1/session/create` body at `now`; answers its ID.
    pub(super) fn create_session(&mut self, body: &[u8], now: Instant) -> Result<String, Invalid> {
        let request: Value = match body.is_empty() {
            true => json!({}),
            false => serde_json::from_slice(body)
                .map_err(|err| Invalid(format!("Request decode failed: {err}")))?,
        };
        let ttl = match request.get("TTL").and_then(Value::as_str) {
            None | Some("") => Duration::ZERO,
            Some(text) => {
                let ttl = duration::parse(text).ok_or_else(|| {
                    Invalid(format!(
                        "Session TTL '{text}' invalid: time: invalid duration {text:?}"
                    ))
                })?;
                if !ttl.is_zero() && !(TTL_MIN..=TTL_MAX).contains(&ttl) {
                    return Err(Invalid(format!(
                        "Invalid Session TTL '{}', must be between [{}={}]",
                        ttl.as_nanos(),
                        duration::format(TTL_MIN),
                        duration::format(TTL_MAX)
                    )));
                }
                ttl
            }
        };
        let behavior = match request.get("Behavior").and_then(Value::as_str) {
            None | Some("") | Some("release") => Behavior::Release,
            Some("delete") => Behavior::Delete,
            Some(other) => return Err(Invalid(format!("Invalid Behavior setting '{other}'"))),
        };
        let lock_delay = match request.get("LockDelay") {
            None | Some(Value::Null) => DEFAULT_LOCK_DELAY,
            Some(value) => duration::lock_delay(value)
                .ok_or_else(|| Invalid(format!("Request decode failed: LockDelay {value}")))?
                .min(MAX_LOCK_DELAY),
        };
        let node_checks = match request.get("NodeChecks").or_else(|| request.get("Checks")) {
            Some(Value::Array(checks)) => {
                checks.iter().filter_map(Value::as_str).map(str::to_string).collect()
            }
            _ => vec!["serfHealth".to_string()],
        };
        let name = request.get("Name").and_then(Value::as_str).unwrap_or_default().to_string();
        let create_index = self.next_index();
        let mut session =
            Session { name, ttl, behavior, lock_delay, node_checks, create_index, deadline: None };
        session.deadline = session.deadline_from(now);
        let id = uuid();
        self.sessions.insert(id.clone(), session);
        Ok(id)
    }

    /// Renews the session `id` at `now`: its TTL timer starts again. `None` if it does not
    /// exist (never created, destroyed, or invalidated).
    pub(super) fn renew_session(&mut self, id: &str, now: Instant) -> Option<Value> {
        let session = self.sessions.get_mut(id)?;
        session.deadline = session.deadline_from(now);
        Some(describe(id, session))
    }

    /// The session `id` as `GET /v1/session/info/ID` describes it.
    pub(super) fn session_info(&self, id: &str) -> Option<Value> {
        self.sessions.get(id).map(|session| describe(id, session))
    }
}

/// A session as Consul's endpoints describe it.
fn describe(id: &str, session: &Session) -> Value {
    json!({
        "ID": id,
        "Name": session.name,
        "Node": NODE,
        "LockDelay": u64::try_from(session.lock_delay.as_nanos()).unwrap_or(u64::MAX),
        "Behavior": session.behavior.as_str(),
        "TTL": match session.ttl.is_zero() {
            true => String::new(),
            false => duration::format(session.ttl),
        },
        "NodeChecks": session.node_checks,
        "ServiceChecks": null,
        "CreateIndex": session.create_index,
        "ModifyIndex": session.create_index,
    })
}

/// A random session ID in the UUID form Consul uses.
fn uuid() -> String {
    let hex = |count: usize| -> String {
        (0..count).map(|_| char::from_digit(fastrand::u32(0..16), 16).unwrap_or('0')).collect()
    };
    format!("{}-{}-{}-{}-{}", hex(8), hex(4), hex(4), hex(4), hex(12))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ttls_outside_ten_seconds_to_a_day_are_refused_as_consul_words_it() {
        let (mut state, now) = (State::default(), Instant::now());
        let err = state.create_session(br#"{"TTL":"5s"}"#, now).unwrap_err();
        assert_eq!(err.0, "Invalid Session TTL '5000000000', must be between [10s=24h0m0s]");
        assert!(state.create_session(br#"{"TTL":"25h"}"#, now).is_err());
        let id = state.create_session(br#"{"TTL":"10s","LockDelay":"0s"}"#, now).unwrap();
        let info = state.session_info(&id).unwrap();
        assert_eq!((info["TTL"].as_str(), info["LockDelay"].as_u64()), (Some("10s"), Some(0)));
        assert_eq!(info["NodeChecks"], json!(["serfHealth"]));
    }

    #[test]
    fn a_session_expires_at_its_ttl_and_a_renewal_moves_that_on() {
        let (mut state, now) = (State::default(), Instant::now());
        let id = state.create_session(br#"{"TTL":"10s","NodeChecks":[]}"#, now).unwrap();
        let later = now + Duration::from_secs(9);
        assert!(state.renew_session(&id, later).is_some());
        assert!(!state.expire(now + Duration::from_secs(18)), "renewed at 9 s");
        assert!(state.expire(now + Duration::from_secs(19)));
        assert!(state.renew_session(&id, now + Duration::from_secs(19)).is_none());
    }
}
