//! The lease scripts: Lua files loaded into the server once and called by their SHA-1 hash.
//!
//! `EVALSHA` answers `NOSCRIPT` when the server has forgotten a script (after a restart, a
//! failover or `SCRIPT FLUSH`); the script then did not run, so it is loaded again and called
//! once more. That is the only time a call is repeated: any other failure goes back to the
//! caller.

use std::fmt::Display;

use baton_core::Result;
use redis::{Cmd, FromRedisValue, Pipeline, ServerErrorKind};

use crate::error::{malformed, query_error};
use crate::link::Link;

/// What every script starts with: the record layout and shared functions.
const PRELUDE: &str = include_str!("../lua/prelude.lua");

/// One of the lease scripts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Script {
    Acquire,
    Renew,
    RenewAll,
    Release,
    ForceRelease,
}

impl Script {
    const ALL: [Script; 5] =
        [Script::Acquire, Script::Renew, Script::RenewAll, Script::Release, Script::ForceRelease];

    fn body(self) -> &'static str {
        match self {
            Script::Acquire => include_str!("../lua/acquire.lua"),
            Script::Renew => include_str!("../lua/renew.lua"),
            Script::RenewAll => include_str!("../lua/renew_all.lua"),
            Script::Release => include_str!("../lua/release.lua"),
            Script::ForceRelease => include_str!("../lua/force_release.lua"),
        }
    }

    fn load_command(self) -> Cmd {
        let mut command = redis::cmd("SCRIPT");
        command.arg("LOAD").arg(format!("{PRELUDE}\n{}", self.body()));
        command
    }
}

/// The keys and arguments of one script call, and commands to send just before it.
pub(crate) struct ScriptCall<'a> {
    /// Commands sent first, in the same round trip; their answers are ignored.
    pub(crate) before: &'a [Cmd],
    /// The keys the script touches.
    pub(crate) keys: &'a [String],
    /// The other arguments.
    pub(crate) args: &'a [String],
}

/// The hashes of the loaded scripts, in the order of `Script::ALL`.
pub(crate) struct Scripts {
    hashes: Vec<String>,
}

impl Scripts {
    /// Loads every script into the server and keeps their hashes.
    pub(crate) async fn load(link: &Link) -> Result<Scripts> {
        let mut pipeline = redis::pipe();
        for script in Script::ALL {
            pipeline.add_command(script.load_command());
        }
        let hashes: Vec<String> = link.pipeline(&pipeline, "loading the lease scripts").await?;
        if hashes.len() != Script::ALL.len() {
            return Err(malformed(format!("{} hashes for the lease scripts", hashes.len())));
        }
        Ok(Scripts { hashes })
    }

    /// Runs `script` as `call` says; `action` names the call in errors.
    pub(crate) async fn run<T: FromRedisValue>(
        &self,
        link: &Link,
        script: Script,
        call: ScriptCall<'_>,
        action: impl Display,
    ) -> Result<T> {
        let pipeline = self.pipeline(script, &call);
        let answer = match link.send::<(T,)>(&pipeline).await? {
            Err(err) if err.kind() == redis::ErrorKind::Server(ServerErrorKind::NoScript) => {
                let _: String = link.command(&script.load_command(), &action).await?;
                link.send(&pipeline).await?
            }
            answer => answer,
        };
        answer.map(|(answer,)| answer).map_err(|err| query_error(&link.target, action, &err))
    }

    fn pipeline(&self, script: Script, call: &ScriptCall<'_>) -> Pipeline {
        let mut pipeline = redis::pipe();
        for command in call.before {
            pipeline.add_command(command.clone()).ignore();
        }
        let index = Script::ALL.iter().position(|known| *known == script).unwrap_or_default();
        pipeline.cmd("EVALSHA").arg(&self.hashes[index]).arg(call.keys.len());
        pipeline.arg(call.keys).arg(call.args);
        pipeline
    }
}
