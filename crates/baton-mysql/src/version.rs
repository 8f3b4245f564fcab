//! Which servers baton accepts: those with `FOR UPDATE SKIP LOCKED` and `JSON_TABLE`.

use baton_core::{Error, Result};

/// What is accepted, for messages.
const ACCEPTED: &str = "baton needs FOR UPDATE SKIP LOCKED and JSON_TABLE: MariaDB 10.6 or later, \
                        or MySQL 8.0.4 or later";

/// Refuses a server whose `VERSION()` is older than MariaDB 10.6 or MySQL 8.0.4.
pub(crate) fn check_version(endpoint: &str, version: &str) -> Result<()> {
    let numbers: Vec<u32> = version
        .split(|c: char| !c.is_ascii_digit())
        .take(3)
        .map(|part| part.parse().unwrap_or(0))
        .collect();
    let at = |index: usize| numbers.get(index).copied().unwrap_or(0);
    let found = (at(0), at(1), at(2));
    let enough = match version.contains("MariaDB") {
        true => found >= (10, 6, 0),
        false => found >= (8, 0, 4),
    };
    if enough {
        return Ok(());
    }
    Err(Error::invalid_input(format!("the server at {endpoint} is {version}: {ACCEPTED}")))
}

#[cfg(test)]
mod tests {
    use super::check_version;

    #[test]
    fn accepts_servers_with_skip_locked() {
        assert!(check_version("db:3306", "10.11.19-MariaDB-0+deb12u1").is_ok());
        assert!(check_version("db:3306", "10.6.0-MariaDB").is_ok());
        assert!(check_version("db:3306", "8.0.36").is_ok());
        assert!(check_version("db:3306", "9.1.0").is_ok());
    }

    #[test]
    fn refuses_older_servers_in_one_line() {
        for version in ["10.5.23-MariaDB", "5.7.44-log", "8.0.0-dmr", "8.0.3-rc"] {
            let err = check_version("db:3306", version).unwrap_err();
            let message = err.to_string();
            assert!(message.contains(version) && message.contains("MariaDB 10.6"), "{message}");
            assert!(!message.contains('\n'), "{message}");
        }
    }
}
