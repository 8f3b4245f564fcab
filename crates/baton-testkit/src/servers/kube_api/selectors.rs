//! Label and field selectors: equality-based requirements (`k=v`, `k==v`, `k!=v`), and for
//! labels also existence (`k`, `!k`), joined by commas. Set-based label requirements (`in`,
//! `notin`) are refused as not supported. Field selectors name only the fields kube-apiserver
//! supports for the kind.

use super::object::Object;
use super::query::Query;
use super::resources::Kind;
use super::status::ApiError;

/// The selectors of a LIST or WATCH.
pub(super) struct Selectors {
    labels: Vec<Requirement>,
    fields: Vec<Requirement>,
}

struct Requirement {
    key: String,
    operator: Operator,
}

enum Operator {
    Equals(String),
    NotEquals(String),
    Exists,
    NotExists,
}

impl Selectors {
    /// The `labelSelector` and `fieldSelector` of `query`, for objects of kind `K`.
    pub(super) fn parse<K: Kind>(query: &Query) -> Result<Selectors, ApiError> {
        let labels = requirements(query.get("labelSelector").unwrap_or_default(), true)?;
        let fields = requirements(query.get("fieldSelector").unwrap_or_default(), false)?;
        let example = Object::<K>::default();
        if let Some(unknown) = fields.iter().find(|field| example.field(&field.key).is_none()) {
            return Err(ApiError::bad_request(format!(
                "field label not supported: {}",
                unknown.key
            )));
        }
        Ok(Selectors { labels, fields })
    }

    /// Whether `object` is selected.
    pub(super) fn matches<K: Kind>(&self, object: &Object<K>) -> bool {
        let labels = &object.metadata.labels;
        let label_ok = |requirement: &Requirement| {
            let value = labels.get(&requirement.key);
            match &requirement.operator {
                Operator::Equals(expected) => value == Some(expected),
                Operator::NotEquals(expected) => value != Some(expected),
                Operator::Exists => value.is_some(),
                Operator::NotExists => value.is_none(),
            }
        };
        let field_ok = |requirement: &Requirement| {
            let value = object.field(&requirement.key).unwrap_or_default();
            match &requirement.operator {
                Operator::Equals(expected) => value == *expected,
                Operator::NotEquals(expected) => value != *expected,
                Operator::Exists | Operator::NotExists => false,
            }
        };
        self.labels.iter().all(label_ok) && self.fields.iter().all(field_ok)
    }
}

/// The requirements of `selector`; existence requirements only for labels.
fn requirements(selector: &str, labels: bool) -> Result<Vec<Requirement>, ApiError> {
    if labels && selector.contains('(') {
        return Err(ApiError::bad_request(format!(
            "unable to parse requirement: set-based label selectors (in, notin) are not \
             supported by this emulated API server: {selector:?}"
        )));
    }
    let invalid = |part: &str| {
        let what = if labels { "label" } else { "field" };
        ApiError::bad_request(format!(
            "unable to parse requirement: invalid {what} selector {part:?}"
        ))
    };
    selector
        .split(',')
        .map(str::trim)
        .filter(|part| !part.is_empty())
        .map(|part| {
            let (key, operator) = if let Some((key, value)) = part.split_once("!=") {
                (key, Operator::NotEquals(value.trim().to_string()))
            } else if let Some((key, value)) =
                part.split_once("==").or_else(|| part.split_once('='))
            {
                (key, Operator::Equals(value.trim().to_string()))
            } else if let Some(key) = part.strip_prefix('!').filter(|_| labels) {
                (key, Operator::NotExists)
            } else if labels {
                (part, Operator::Exists)
            } else {
                return Err(invalid(part));
            };
            let key = key.trim();
            match key.is_empty() || key.contains(char::is_whitespace) {
                true => Err(invalid(part)),
                false => Ok(Requirement { key: key.to_string(), operator }),
            }
        })
        .collect()
}
