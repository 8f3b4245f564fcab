//! Validation as kube-apiserver's: field errors typed and worded as apimachinery's, and the
//! checks every object's metadata passes (name, generateName, labels, annotations).

use std::collections::BTreeMap;
use std::fmt;

use super::object::ObjectMeta;

/// The most bytes an object's annotations may hold, keys and values together.
const ANNOTATIONS_LIMIT: usize = 256 * 1024;
const DNS1123_SUBDOMAIN_MAX: usize = 253;
const DNS1123_LABEL_MAX: usize = 63;
const QUALIFIED_NAME_MAX: usize = 63;
const LABEL_VALUE_MAX: usize = 63;
/// The pattern of a DNS-1123 subdomain, as kube-apiserver quotes it.
const SUBDOMAIN_PATTERN: &str = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
const LABEL_PATTERN: &str = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const QUALIFIED_NAME_PATTERN: &str = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const LABEL_VALUE_PATTERN: &str = "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?";

/// One invalid field.
#[derive(Debug, Clone)]
pub(super) struct FieldError {
    field: String,
    kind: ErrorKind,
    detail: String,
}

#[derive(Debug, Clone)]
enum ErrorKind {
    /// The value, as Go prints it (strings quoted).
    Invalid(String),
    Required,
    Forbidden,
    TooLong,
    /// The value, and the values supported.
    NotSupported(String, Vec<String>),
}

impl FieldError {
    /// `field` has the value `value` (already printed: quoted if a string), which is invalid.
    pub(super) fn invalid(field: &str, value: String, detail: impl Into<String>) -> FieldError {
        FieldError {
            field: field.to_string(),
            kind: ErrorKind::Invalid(value),
            detail: detail.into(),
        }
    }

    /// `field` is required.
    pub(super) fn required(field: &str, detail: &str) -> FieldError {
        FieldError {
            field: field.to_string(),
            kind: ErrorKind::Required,
            detail: detail.to_string(),
        }
    }

    /// `field` may not be set (or not so).
    pub(super) fn forbidden(field: &str, detail: &str) -> FieldError {
        FieldError {
            field: field.to_string(),
            kind: ErrorKind::Forbidden,
            detail: detail.to_string(),
        }
    }

    /// `field` has `value` (printed), none of `supported`.
    pub(super) fn not_supported(field: &str, value: String, supported: &[&str]) -> FieldError {
        let supported = supported.iter().map(|value| quoted(value)).collect();
        let kind = ErrorKind::NotSupported(value, supported);
        FieldError { field: field.to_string(), kind, detail: String::new() }
    }

    /// The field's path.
    pub(super) fn field(&self) -> &str {
        &self.field
    }

    /// The `reason` of the error's cause in a `Status`.
    pub(super) fn reason(&self) -> &'static str {
        match self.kind {
            ErrorKind::Invalid(_) => "FieldValueInvalid",
            ErrorKind::Required => "FieldValueRequired",
            ErrorKind::Forbidden => "FieldValueForbidden",
            ErrorKind::TooLong => "FieldValueTooLong",
            ErrorKind::NotSupported(..) => "FieldValueNotSupported",
        }
    }

    /// The error without its field, as apimachinery's `ErrorBody`.
    pub(super) fn body(&self) -> String {
        let head = match &self.kind {
            ErrorKind::Invalid(value) => format!("Invalid value: {value}"),
            ErrorKind::Required => "Required value".to_string(),
            ErrorKind::Forbidden => "Forbidden".to_string(),
            ErrorKind::TooLong => "Too long".to_string(),
            ErrorKind::NotSupported(value, supported) => {
                format!("Unsupported value: {value}: supported values: {}", supported.join(", "))
            }
        };
        match self.detail.as_str() {
            "" => head,
            detail => format!("{head}: {detail}"),
        }
    }
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.body())
    }
}

/// The errors in one sentence, as apimachinery aggregates them.
pub(super) fn aggregate(errors: &[FieldError]) -> String {
    match errors {
        [one] => one.to_string(),
        many => {
            let all: Vec<String> = many.iter().map(FieldError::to_string).collect();
            format!("[{}]", all.join(", "))
        }
    }
}

/// `text` quoted as Go's `%q` quotes it (close enough for names and values).
pub(super) fn quoted(text: &str) -> String {
    serde_json::to_string(text).expect("a string serializes")
}

/// What is wrong with `name` as a DNS-1123 subdomain (nothing if it is one).
pub(super) fn dns1123_subdomain(name: &str) -> Vec<String> {
    let mut problems = Vec::new();
    if name.len() > DNS1123_SUBDOMAIN_MAX {
        problems.push(format!("must be no more than {DNS1123_SUBDOMAIN_MAX} characters"));
    }
    let label_ok = |label: &str| {
        let bytes = label.as_bytes();
        let alnum = |b: &u8| b.is_ascii_lowercase() || b.is_ascii_digit();
        !bytes.is_empty()
            && bytes.first().is_some_and(alnum)
            && bytes.last().is_some_and(alnum)
            && bytes.iter().all(|b| alnum(b) || *b == b'-')
    };
    if !name.split('.').all(label_ok) {
        problems.push(regex_error(
            "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \
             '-' or '.', and must start and end with an alphanumeric character",
            SUBDOMAIN_PATTERN,
            &["example.com"],
        ));
    }
    problems
}

/// What is wrong with `name` as a DNS-1123 label (what namespace names are).
pub(super) fn dns1123_label(name: &str) -> Vec<String> {
    let mut problems = Vec::new();
    if name.len() > DNS1123_LABEL_MAX {
        problems.push(format!("must be no more than {DNS1123_LABEL_MAX} characters"));
    }
    let bytes = name.as_bytes();
    let alnum = |b: &u8| b.is_ascii_lowercase() || b.is_ascii_digit();
    let valid = bytes.first().is_some_and(alnum)
        && bytes.last().is_some_and(alnum)
        && bytes.iter().all(|b| alnum(b) || *b == b'-');
    if !valid {
        problems.push(regex_error(
            "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or \
             '-', and must start and end with an alphanumeric character",
            LABEL_PATTERN,
            &["my-name", "123-abc"],
        ));
    }
    problems
}

/// What is wrong with `name` as a qualified name (an optional DNS subdomain prefix and '/',
/// then a name of at most 63 characters), as label and annotation keys must be.
fn qualified_name(name: &str) -> Vec<String> {
    let message = "must consist of alphanumeric characters, '-', '_' or '.', and must start and \
                   end with an alphanumeric character";
    let examples = ["MyName", "my.name", "123-abc"];
    let parts: Vec<&str> = name.split('/').collect();
    let (prefix, short) = match parts.as_slice() {
        [short] => (None, *short),
        [prefix, short] => (Some(*prefix), *short),
        _ => {
            let pattern = regex_error(
                &format!("a qualified name {message}"),
                QUALIFIED_NAME_PATTERN,
                &examples,
            );
            return vec![format!(
                "{pattern} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
            )];
        }
    };
    let mut problems = Vec::new();
    match prefix {
        Some("") => problems.push("prefix part must be non-empty".to_string()),
        Some(prefix) => problems
            .extend(dns1123_subdomain(prefix).into_iter().map(|p| format!("prefix part {p}"))),
        None => {}
    }
    if short.is_empty() {
        problems.push("name part must be non-empty".to_string());
    } else if short.len() > QUALIFIED_NAME_MAX {
        problems.push(format!("name part must be no more than {QUALIFIED_NAME_MAX} characters"));
    }
    if !short.is_empty() && !alphanumeric_ends(short) {
        problems
            .push(format!("name part {}", regex_error(message, QUALIFIED_NAME_PATTERN, &examples)));
    }
    problems
}

/// What is wrong with `value` as a label value.
fn label_value(value: &str) -> Vec<String> {
    let mut problems = Vec::new();
    if value.len() > LABEL_VALUE_MAX {
        problems.push(format!("must be no more than {LABEL_VALUE_MAX} characters"));
    }
    if !value.is_empty() && !alphanumeric_ends(value) {
        problems.push(regex_error(
            "a valid label must be an empty string or consist of alphanumeric characters, '-', \
             '_' or '.', and must start and end with an alphanumeric character",
            LABEL_VALUE_PATTERN,
            &["MyValue", "my_value", "12345"],
        ));
    }
    problems
}

/// Whether `text` is alphanumerics, '-', '_' and '.', starting and ending alphanumeric.
fn alphanumeric_ends(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.first().is_some_and(u8::is_ascii_alphanumeric)
        && bytes.last().is_some_and(u8::is_ascii_alphanumeric)
        && bytes.iter().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
}

/// apimachinery's `RegexError`: a message, examples, and the pattern.
fn regex_error(message: &str, pattern: &str, examples: &[&str]) -> String {
    let examples: Vec<String> = examples.iter().map(|example| format!("'{example}', ")).collect();
    format!("{message} (e.g. {}regex used for validation is '{pattern}')", examples.join("or "))
}

/// The errors in an object's metadata, as `ValidateObjectMeta` finds them.
pub(super) fn object_meta(meta: &ObjectMeta) -> Vec<FieldError> {
    let mut errors = Vec::new();
    if !meta.generate_name.is_empty() {
        // A generateName is checked as a prefix: a trailing '-' is allowed.
        let mut prefix = meta.generate_name.clone();
        if prefix.len() > 1 && prefix.ends_with('-') {
            prefix.replace_range(prefix.len() - 1.., "a");
        }
        for problem in dns1123_subdomain(&prefix) {
            errors.push(FieldError::invalid(
                "metadata.generateName",
                quoted(&meta.generate_name),
                problem,
            ));
        }
    }
    if meta.name.is_empty() {
        errors.push(FieldError::required("metadata.name", "name or generateName is required"));
    } else {
        for problem in dns1123_subdomain(&meta.name) {
            errors.push(FieldError::invalid("metadata.name", quoted(&meta.name), problem));
        }
    }
    errors.extend(labels(&meta.labels));
    errors.extend(annotations(&meta.annotations));
    errors
}

fn labels(labels: &BTreeMap<String, String>) -> Vec<FieldError> {
    let mut errors = Vec::new();
    for (key, value) in labels {
        for problem in qualified_name(key) {
            errors.push(FieldError::invalid("metadata.labels", quoted(key), problem));
        }
        for problem in label_value(value) {
            errors.push(FieldError::invalid("metadata.labels", quoted(value), problem));
        }
    }
    errors
}

fn annotations(annotations: &BTreeMap<String, String>) -> Vec<FieldError> {
    let mut errors = Vec::new();
    for key in annotations.keys() {
        for problem in qualified_name(&key.to_lowercase()) {
            errors.push(FieldError::invalid("metadata.annotations", quoted(key), problem));
        }
    }
    let size: usize = annotations.iter().map(|(key, value)| key.len() + value.len()).sum();
    if size > ANNOTATIONS_LIMIT {
        errors.push(FieldError {
            field: "metadata.annotations".to_string(),
            kind: ErrorKind::TooLong,
            detail: format!("may not be more than {ANNOTATIONS_LIMIT} bytes"),
        });
    }
    errors
}
