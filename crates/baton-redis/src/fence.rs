//! Fencing writes into Redis itself.
//!
//! [`SCRIPT`] is a Lua check-and-set on a fence key: it writes a value only if the writer's
//! fencing token is at least the highest token the resource has accepted, and raises the fence
//! to it. A holder that lost its lease (paused past its TTL, cut off) and writes with its old
//! token after a newer holder has written is refused, so its write never lands.
//!
//! ```text
//! EVAL <SCRIPT> 2 {ledger}:fence {ledger}:data <token> <value>
//! ```
//!
//! - `KEYS[1]`: the fence key (the highest token accepted for the resource);
//! - `KEYS[2]`: the data key the value is written to (`SET`);
//! - `ARGV[1]`: the token in decimal, as issued (`BATON_FENCING_TOKEN`); `ARGV[2]`: the value.
//!
//! It answers 1 when the value was written and 0 when the token is stale. An equal token is
//! accepted, so one holder writes many times under one token. Keep both keys in one hash slot
//! (a shared `{tag}`) and adapt the write (a `HSET`, an `XADD`, several keys) to the resource:
//! whatever the script writes after the check is fenced. Tokens are compared as decimal
//! numbers of any length, so the script is exact for every 64-bit token.
//!
//! The fence lives in the same Redis as the data, so it is only as durable as the data: if the
//! server loses both (a restart without persistence), the next write starts a new fence.

/// The fenced write script (`lua/fence_set.lua`).
pub const SCRIPT: &str = include_str!("../lua/fence_set.lua");
