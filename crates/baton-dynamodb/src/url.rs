//! Parsing `dynamodb://TABLE?region=R&endpoint=URL&profile=NAME&credentials_file=PATH&timeout=D`.

use std::path::PathBuf;
use std::time::Duration;

use baton_core::echo::quoted;
use baton_core::time::parse_duration;
use baton_core::url::{percent_decode, redact};
use baton_core::{Error, Result};

/// The URL form, for error messages.
pub(crate) const FORM: &str = "dynamodb://TABLE[?region=REGION&endpoint=URL&profile=NAME&credentials_file=PATH&timeout=DURATION]";

/// How long one request to DynamoDB may take unless the URL says otherwise.
pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(5);

/// The longest table name DynamoDB accepts.
const MAX_TABLE_NAME: usize = 255;

/// Where the leases live and how to reach DynamoDB.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Target {
    /// The table holding the leases.
    pub(crate) table: String,
    /// The region; `None` for the one the environment or the profile names.
    pub(crate) region: Option<String>,
    /// An endpoint to use instead of the region's (a VPC endpoint, an emulator).
    pub(crate) endpoint: Option<String>,
    /// The profile of the shared credentials and config files to take credentials from.
    pub(crate) profile: Option<String>,
    /// A shared credentials file to read instead of `~/.aws/credentials`.
    pub(crate) credentials_file: Option<PathBuf>,
    /// How long one request may take before its outcome is judged unknown.
    pub(crate) timeout: Duration,
}

fn invalid(url: &str, why: &str) -> Error {
    Error::invalid_input(format!(
        "invalid DynamoDB URL {}: {why}; expected {FORM}",
        quoted(&redact(url))
    ))
}

/// Whether `name` is a DynamoDB table name: 3 to 255 letters, digits, `_`, `-` and `.`.
fn is_table_name(name: &str) -> bool {
    (3..=MAX_TABLE_NAME).contains(&name.len())
        && name.bytes().all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.'))
}

/// Parses a `dynamodb://` URL. It carries no secret: credentials come from the environment or
/// a profile.
pub(crate) fn parse(url: &str) -> Result<Target> {
    let rest = url
        .strip_prefix("dynamodb://")
        .ok_or_else(|| invalid(url, "the scheme must be dynamodb"))?;
    let (table, query) = rest.split_once('?').unwrap_or((rest, ""));
    let table = table.trim_end_matches('/');
    if !is_table_name(table) {
        return Err(invalid(
            url,
            &format!(
                "table name {} is not a DynamoDB table name (3 to {MAX_TABLE_NAME} letters, \
                 digits, '_', '-' and '.')",
                quoted(table)
            ),
        ));
    }
    let mut target = Target {
        table: table.to_string(),
        region: None,
        endpoint: None,
        profile: None,
        credentials_file: None,
        timeout: DEFAULT_REQUEST_TIMEOUT,
    };
    for pair in query.split('&').filter(|pair| !pair.is_empty()) {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        let value = percent_decode(value)
            .filter(|value| !value.is_empty())
            .ok_or_else(|| invalid(url, &format!("parameter {key} needs a value")))?;
        match key {
            "region" => target.region = Some(value),
            "endpoint" => {
                if !(value.starts_with("http://") || value.starts_with("https://")) {
                    return Err(invalid(
                        url,
                        &format!("endpoint {} is not an http:// or https:// URL", quoted(&value)),
                    ));
                }
                target.endpoint = Some(value.trim_end_matches('/').to_string());
            }
            "profile" => target.profile = Some(value),
            "credentials_file" => target.credentials_file = Some(PathBuf::from(value)),
            "timeout" => {
                target.timeout = parse_duration(&value)
                    .ok()
                    .filter(|timeout| !timeout.is_zero())
                    .ok_or_else(|| {
                    invalid(
                        url,
                        &format!("timeout {} is not a duration such as 5s", quoted(&value)),
                    )
                })?;
            }
            other => {
                return Err(invalid(
                    url,
                    &format!(
                        "unknown parameter {}: accepted are region, endpoint, profile, \
                         credentials_file and timeout",
                        quoted(other)
                    ),
                ));
            }
        }
    }
    Ok(target)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_and_parameters_are_read() {
        let target = parse(
            "dynamodb://baton-leases?region=eu-west-1&endpoint=http%3A%2F%2F127.0.0.1%3A8000/\
             &profile=ops&credentials_file=/etc/baton/aws&timeout=2s",
        )
        .unwrap();
        assert_eq!(target.table, "baton-leases");
        assert_eq!(target.region.as_deref(), Some("eu-west-1"));
        assert_eq!(target.endpoint.as_deref(), Some("http://127.0.0.1:8000"));
        assert_eq!(target.profile.as_deref(), Some("ops"));
        assert_eq!(target.credentials_file, Some(PathBuf::from("/etc/baton/aws")));
        assert_eq!(target.timeout, Duration::from_secs(2));
        let bare = parse("dynamodb://leases").unwrap();
        assert_eq!(
            (bare.region, bare.endpoint, bare.timeout),
            (None, None, DEFAULT_REQUEST_TIMEOUT)
        );
    }

    #[test]
    fn malformed_urls_fail_in_one_line() {
        for (url, expected) in [
            ("dynamo://leases", "scheme must be dynamodb"),
            ("dynamodb://", "not a DynamoDB table name"),
            ("dynamodb://a b", "not a DynamoDB table name"),
            ("dynamodb://leases?region=", "needs a value"),
            ("dynamodb://leases?endpoint=127.0.0.1:8000", "not an http:// or https:// URL"),
            ("dynamodb://leases?timeout=soon", "not a duration"),
            ("dynamodb://leases?secret_key=abc", "unknown parameter"),
        ] {
            let err = parse(url).expect_err(url).to_string();
            assert!(err.contains(expected) && err.contains(FORM) && !err.contains('\n'), "{err}");
        }
    }
}
