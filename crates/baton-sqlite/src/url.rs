//! Parsing `sqlite://` URLs into a database file path.

use std::path::PathBuf;

use baton_core::{Error, Result};

const ACCEPTED: &str = "expected sqlite://relative/path.db or sqlite:///absolute/path.db";

/// Extracts the database file path from a `sqlite://` URL.
///
/// `sqlite://data/baton.db` is relative to the working directory, `sqlite:///var/lib/baton.db`
/// is absolute. In-memory databases and query parameters are refused.
pub(crate) fn database_path(url: &str) -> Result<PathBuf> {
    let rest =
        url.strip_prefix("sqlite://").or_else(|| url.strip_prefix("sqlite:")).ok_or_else(|| {
            Error::invalid_input(format!(
                "invalid SQLite URL {}: {ACCEPTED}",
                baton_core::echo::quoted(url)
            ))
        })?;
    if rest == ":memory:" || rest.contains("mode=memory") {
        return Err(Error::invalid_input(format!(
            "invalid SQLite URL {}: in-memory databases are not supported, because every \
             process sharing leases must open the same file; {ACCEPTED}",
            baton_core::echo::quoted(url)
        )));
    }
    if rest.contains('?') || rest.contains('#') {
        return Err(Error::invalid_input(format!(
            "invalid SQLite URL {}: query parameters are not supported; {ACCEPTED}",
            baton_core::echo::quoted(url)
        )));
    }
    if rest.is_empty() || rest.ends_with('/') {
        return Err(Error::invalid_input(format!(
            "invalid SQLite URL {}: no database file named; {ACCEPTED}",
            baton_core::echo::quoted(url)
        )));
    }
    Ok(PathBuf::from(rest))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_and_absolute_paths() {
        assert_eq!(
            database_path("sqlite://data/baton.db").unwrap(),
            PathBuf::from("data/baton.db")
        );
        assert_eq!(
            database_path("sqlite:///var/baton.db").unwrap(),
            PathBuf::from("/var/baton.db")
        );
        assert_eq!(database_path("sqlite:baton.db").unwrap(), PathBuf::from("baton.db"));
    }

    #[test]
    fn memory_and_malformed_urls_are_refused() {
        for url in ["sqlite::memory:", "sqlite://:memory:", "sqlite://x.db?mode=memory"] {
            let err = database_path(url).unwrap_err();
            assert!(err.to_string().contains("in-memory databases are not supported"), "{err}");
        }
        for url in ["postgres://x", "sqlite://", "sqlite://dir/", "sqlite://x.db?mode=rwc"] {
            let err = database_path(url).unwrap_err();
            assert_eq!(err.kind(), baton_core::ErrorKind::InvalidInput, "{url}");
            assert!(err.to_string().contains(url), "{err}");
        }
    }
}
