//! What the server says about itself (`INFO server`), and whether baton can use it.

use baton_core::{Error, Result};

/// The oldest Redis version with every command the lease scripts use: streams (`XADD`,
/// `XRANGE`) and scripts that read `TIME` before writing, which needs their effects to be
/// replicated rather than the script (the default from 5.0 on).
pub(crate) const MIN_VERSION: (u64, u64) = (5, 0);

/// Checks the answer to `INFO server`: a standalone server of [`MIN_VERSION`] or later.
/// `endpoint` names the server in messages.
pub(crate) fn check(info: &str, endpoint: &str) -> Result<()> {
    let field = |name: &str| {
        info.lines().find_map(|line| line.trim().strip_prefix(name)?.strip_prefix(':'))
    };
    match field("redis_mode") {
        Some("cluster") => {
            return Err(Error::invalid_input(format!(
                "the Redis server at {endpoint} runs in cluster mode: Redis Cluster is not \
                 supported, use a standalone server (or its primary)"
            )));
        }
        Some("sentinel") => {
            return Err(Error::invalid_input(format!(
                "{endpoint} is a Redis Sentinel, not a Redis server: give the sentinels as \
                 redis+sentinel://host:port[,host:port…]/master[/db]"
            )));
        }
        _ => {}
    }
    let version = field("redis_version").unwrap_or("unknown");
    let numbers: Vec<u64> =
        version.split('.').map_while(|part| part.parse().ok()).take(2).collect();
    let found = (numbers.first().copied(), numbers.get(1).copied());
    match found {
        (Some(major), Some(minor)) if (major, minor) >= MIN_VERSION => Ok(()),
        _ => Err(Error::invalid_input(format!(
            "the Redis server at {endpoint} is version {version}: baton needs Redis {}.{} or later",
            MIN_VERSION.0, MIN_VERSION.1
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use baton_core::ErrorKind;

    fn info(version: &str, mode: &str) -> String {
        format!("# Server\r\nredis_version:{version}\r\nredis_git_sha1:0\r\nredis_mode:{mode}\r\n")
    }

    #[test]
    fn accepts_standalone_servers_from_5_0() {
        for version in ["5.0.0", "6.2.14", "7.0.15", "7.2.4", "10.1"] {
            assert!(check(&info(version, "standalone"), "h:1/0").is_ok(), "{version}");
        }
    }

    #[test]
    fn refuses_old_versions_clusters_and_sentinels_in_one_line() {
        for (text, expected) in [
            (info("4.0.14", "standalone"), "is version 4.0.14: baton needs Redis 5.0 or later"),
            (info("7.0.15", "cluster"), "cluster mode"),
            (info("7.0.15", "sentinel"), "is a Redis Sentinel"),
            ("# Server\r\n".to_string(), "version unknown"),
        ] {
            let err = check(&text, "h:1/0").unwrap_err();
            assert_eq!(err.kind(), ErrorKind::InvalidInput);
            assert!(err.to_string().contains(expected), "{err}");
            assert!(!err.to_string().contains('\n'), "{err}");
        }
    }
}
