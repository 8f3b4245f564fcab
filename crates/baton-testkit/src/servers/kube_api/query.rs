//! A request's query parameters, percent-decoded, with kube-apiserver's reading of booleans,
//! numbers and `dryRun`.

use super::status::ApiError;
use super::validation::{FieldError, quoted};

/// The query parameters, in order.
pub(super) struct Query {
    pairs: Vec<(String, String)>,
}

impl Query {
    /// The parameters of the query string `raw`.
    pub(super) fn parse(raw: Option<&str>) -> Query {
        let pairs = raw
            .unwrap_or_default()
            .split('&')
            .filter(|pair| !pair.is_empty())
            .map(|pair| {
                let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
                (percent_decode(name), percent_decode(value))
            })
            .collect();
        Query { pairs }
    }

    /// The first value of `name`.
    pub(super) fn get(&self, name: &str) -> Option<&str> {
        self.pairs.iter().find(|(key, _)| key == name).map(|(_, value)| value.as_str())
    }

    /// `name` as a boolean, read as Go's `strconv.ParseBool` reads it.
    pub(super) fn flag(&self, name: &str) -> Result<Option<bool>, ApiError> {
        match self.get(name) {
            None => Ok(None),
            Some("1" | "t" | "T" | "true" | "TRUE" | "True") => Ok(Some(true)),
            Some("0" | "f" | "F" | "false" | "FALSE" | "False") => Ok(Some(false)),
            Some(other) => Err(ApiError::bad_request(format!(
                "strconv.ParseBool: parsing {}: invalid syntax",
                quoted(other)
            ))),
        }
    }

    /// `name` as a non-negative integer.
    pub(super) fn number(&self, name: &str) -> Result<Option<u64>, ApiError> {
        self.get(name)
            .map(|text| {
                text.parse().map_err(|_| {
                    let quoted = quoted(text);
                    ApiError::bad_request(format!(
                        "strconv.ParseInt: parsing {quoted}: invalid syntax"
                    ))
                })
            })
            .transpose()
    }

    /// `resourceVersion` (of a LIST or WATCH), when given; refused when not a number, as
    /// kube-apiserver refuses it.
    pub(super) fn resource_version(&self) -> Result<Option<i64>, ApiError> {
        let text = self.get("resourceVersion").unwrap_or_default();
        if text.is_empty() {
            return Ok(None);
        }
        let version = text.parse::<u64>().ok().and_then(|version| i64::try_from(version).ok());
        version.map(Some).ok_or_else(|| {
            let detail = format!("strconv.ParseUint: parsing {}: invalid syntax", quoted(text));
            let error = FieldError::invalid("resourceVersion", quoted(text), detail);
            ApiError::bad_request(error.to_string())
        })
    }

    /// Whether the request is a dry run (`dryRun=All`); other values are refused as invalid
    /// `options` (such as `CreateOptions`).
    pub(super) fn dry_run(&self, options: &'static str) -> Result<bool, ApiError> {
        let values: Vec<&str> =
            self.pairs.iter().filter(|(key, _)| key == "dryRun").map(|(_, v)| v.as_str()).collect();
        check_dry_run(&values, options)
    }
}

/// Whether `values` (of `dryRun`, from the query or a body) ask for a dry run; anything but
/// `All` is refused.
pub(super) fn check_dry_run(values: &[&str], options: &'static str) -> Result<bool, ApiError> {
    if values.iter().all(|value| *value == "All") {
        return Ok(!values.is_empty());
    }
    let printed =
        format!("[]string{{{}}}", values.iter().map(|v| quoted(v)).collect::<Vec<_>>().join(", "));
    let error = FieldError::not_supported("dryRun", printed, &["All"]);
    Err(ApiError::invalid_options(options, &[error]))
}

/// `text` with `%XX` escapes and `+` decoded; malformed escapes are kept as they are.
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |at: usize| bytes.get(at).and_then(|b| (*b as char).to_digit(16));
        match bytes[i] {
            b'%' => match (hex(i + 1), hex(i + 2)) {
                (Some(high), Some(low)) => {
                    decoded.push((high * 16 + low) as u8);
                    i += 3;
                    continue;
                }
                _ => decoded.push(b'%'),
            },
            b'+' => decoded.push(b' '),
            byte => decoded.push(byte),
        }
        i += 1;
    }
    String::from_utf8_lossy(&decoded).into_owned()
}
