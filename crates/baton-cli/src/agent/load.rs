//! Reading a config file: parsed with the spans of its keys, deserialized, checked, and any
//! refusal turned into one line naming the file, the line and the key.

use std::path::Path;

use serde::Deserialize;

use super::config::AgentConfig;
use super::error::{ConfigError, Problem};
use super::locate::{Locator, line_at};
use super::schema::RawConfig;
use super::validate::{Context, Environment, validate};

/// Reads and checks the file at `path`, with the overriding `env`, on a machine named `host`.
pub fn load(path: &Path, env: &Environment, host: &str) -> Result<AgentConfig, ConfigError> {
    let file = path.display().to_string();
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(source) => return Err(ConfigError::Unreadable { file, source }),
    };
    let locator = match Locator::parse(&text) {
        Ok(locator) => locator,
        Err(err) => {
            let line = err.span().map_or(1, |span| line_at(&text, span.start));
            return Err(ConfigError::Syntax { file, line, message: err.message().into() });
        }
    };
    let raw = match RawConfig::deserialize(toml::de::Deserializer::from(locator.document())) {
        Ok(raw) => raw,
        Err(err) => {
            let offset = err.span().map_or(0, |span| span.start);
            let (line, key) = (locator.line_at(offset), locator.path_at(offset));
            return Err(ConfigError::Invalid { file, line, key, message: err.message().into() });
        }
    };
    let base = path.parent().filter(|dir| !dir.as_os_str().is_empty()).unwrap_or(Path::new("."));
    validate(&raw, &Context { base, host, env }).map_err(|problem| match problem {
        Problem::Key { key, message } => {
            ConfigError::Invalid { file, line: locator.line_of(&key), key, message: message.into() }
        }
        Problem::Environment { variable, message } => {
            ConfigError::Environment { variable, message: message.into() }
        }
    })
}
