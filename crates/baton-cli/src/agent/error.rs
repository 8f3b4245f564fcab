//! Why a config file was refused, as one line naming the file, the line and the key.

use std::fmt;

use super::locate::KeyPath;

/// A config file that cannot be used; nothing is started.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file cannot be read.
    #[error("{file}: cannot read the config file: {source}")]
    Unreadable {
        /// The file as given.
        file: String,
        /// Why reading failed.
        source: std::io::Error,
    },
    /// The file is not valid TOML.
    #[error("{file}:{line}: invalid TOML: {message}")]
    Syntax {
        /// The file as given.
        file: String,
        /// Where the parser stopped (1-based).
        line: usize,
        /// What the parser expected.
        message: OneLine,
    },
    /// A key has a value that is refused, is unknown, or is missing.
    #[error("{file}:{line}: {key}: {message}")]
    Invalid {
        /// The file as given.
        file: String,
        /// The line of the key, or of its table when the key is missing (1-based).
        line: usize,
        /// The key, such as `job[2].timeout`.
        key: KeyPath,
        /// What is wrong and what is accepted.
        message: OneLine,
    },
    /// An environment variable that overrides a key has a value that is refused.
    #[error("{variable}: {message}")]
    Environment {
        /// The variable, such as `BATON_BACKEND`.
        variable: &'static str,
        /// What is wrong and what is accepted.
        message: OneLine,
    },
}

/// A message printed on one line: line breaks become spaces.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OneLine(String);

impl From<String> for OneLine {
    fn from(text: String) -> Self {
        OneLine(text.split_whitespace().collect::<Vec<_>>().join(" "))
    }
}

impl From<&str> for OneLine {
    fn from(text: &str) -> Self {
        OneLine::from(text.to_owned())
    }
}

impl fmt::Display for OneLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A refused value found while checking the parsed file. The loader turns it into a
/// [`ConfigError`] with the key's line.
#[derive(Debug)]
pub enum Problem {
    /// The value at a key of the file.
    Key {
        /// The key.
        key: KeyPath,
        /// What is wrong and what is accepted.
        message: String,
    },
    /// The value of an environment variable that overrides a key.
    Environment {
        /// The variable.
        variable: &'static str,
        /// What is wrong and what is accepted.
        message: String,
    },
}

impl Problem {
    /// A problem with the value at `key`.
    pub fn at(key: &KeyPath, message: impl fmt::Display) -> Self {
        Problem::Key { key: key.clone(), message: message.to_string() }
    }

    /// A problem with the value of `variable`.
    pub fn env(variable: &'static str, message: impl fmt::Display) -> Self {
        Problem::Environment { variable, message: message.to_string() }
    }
}
