//! Single values: durations and named choices, refused with the key they came from.

use std::str::FromStr;
use std::time::Duration;

use super::super::error::Problem;
use super::super::locate::KeyPath;
use super::super::schema_values::DurationText;

/// A duration such as `30s` or `1m30s`.
pub fn duration(key: &KeyPath, text: &DurationText) -> Result<Duration, Problem> {
    baton::core::time::parse_duration(text.as_str()).map_err(|err| Problem::at(key, err))
}

/// A duration, when the key is set.
pub fn optional_duration(
    key: &KeyPath,
    text: Option<&DurationText>,
) -> Result<Option<Duration>, Problem> {
    text.map(|text| duration(key, text)).transpose()
}

/// A value parsed by its `FromStr`, whose error names the value and what is accepted.
pub fn named<T>(key: &KeyPath, text: &str) -> Result<T, Problem>
where
    T: FromStr,
    T::Err: std::fmt::Display,
{
    text.parse().map_err(|err| Problem::at(key, err))
}

/// A bearer token: text without whitespace or control characters. The refusal never repeats
/// the value.
pub fn token(text: &str) -> Result<String, &'static str> {
    if text.is_empty() || text.chars().any(|c| c.is_control() || c.is_whitespace()) {
        return Err(
            "invalid token: expected a non-empty token without spaces or control characters",
        );
    }
    Ok(text.to_owned())
}
