//! PATCH bodies: JSON merge patches (RFC 7386), strategic merge patches applied as merge patches
//! (faithful for kinds without lists in their own fields, as Lease and Event), and JSON patches
//! (RFC 6902: add, remove, replace, move, copy, test). Server-side apply is not served.

use serde::Deserialize;
use serde_json::{Map, Value};

use super::status::ApiError;

const JSON_PATCH: &str = "application/json-patch+json";
const MERGE_PATCH: &str = "application/merge-patch+json";
const STRATEGIC_MERGE_PATCH: &str = "application/strategic-merge-patch+json";

/// A parsed patch.
pub(super) enum Patch {
    Merge(Value),
    Json(Vec<Operation>),
}

/// One JSON patch operation.
#[derive(Deserialize)]
pub(super) struct Operation {
    op: String,
    path: String,
    #[serde(default)]
    value: Option<Value>,
    #[serde(default)]
    from: Option<String>,
}

impl Patch {
    /// The patch in `body`, of the media type `media_type`.
    pub(super) fn parse(media_type: Option<&str>, body: &[u8]) -> Result<Patch, ApiError> {
        let kind = media_type.unwrap_or_default();
        if ![JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH].contains(&kind) {
            return Err(ApiError::unsupported_media_type(&[
                JSON_PATCH,
                MERGE_PATCH,
                STRATEGIC_MERGE_PATCH,
            ]));
        }
        let document: Value = serde_json::from_slice(body)
            .map_err(|err| ApiError::bad_request(format!("error decoding patch: {err}")))?;
        if kind == JSON_PATCH {
            let operations = serde_json::from_value(document).map_err(|err| {
                ApiError::bad_request(format!(
                    "json: cannot unmarshal the patch as a list of operations: {err}"
                ))
            })?;
            return Ok(Patch::Json(operations));
        }
        match document {
            Value::Object(_) => Ok(Patch::Merge(document)),
            _ => Err(ApiError::bad_request(
                "error decoding patch: a merge patch must be a JSON object",
            )),
        }
    }

    /// Applies the patch to `document`.
    pub(super) fn apply(&self, document: &mut Value) -> Result<(), ApiError> {
        match self {
            Patch::Merge(patch) => {
                merge(document, patch);
                Ok(())
            }
            Patch::Json(operations) => operations
                .iter()
                .try_for_each(|operation| operation.apply(document))
                .map_err(ApiError::patch_rejected),
        }
    }
}

/// RFC 7386: objects merge key by key, `null` removes, anything else replaces.
fn merge(target: &mut Value, patch: &Value) {
    let Value::Object(changes) = patch else {
        *target = patch.clone();
        return;
    };
    if !target.is_object() {
        *target = Value::Object(Map::new());
    }
    let fields = target.as_object_mut().expect("made an object above");
    for (key, change) in changes {
        match change {
            Value::Null => {
                fields.remove(key);
            }
            change => merge(fields.entry(key.clone()).or_insert(Value::Null), change),
        }
    }
}

impl Operation {
    fn apply(&self, document: &mut Value) -> Result<(), String> {
        let path = pointer(&self.path)?;
        let value =
            || self.value.clone().ok_or_else(|| format!("{} operation has no value", self.op));
        let missing = |what: &str| {
            format!("{what} operation does not apply: doc is missing path: {:?}", self.path)
        };
        match self.op.as_str() {
            "add" => add(document, &path, value()?).ok_or_else(|| missing("add")),
            "remove" => remove(document, &path).map(drop).ok_or_else(|| missing("remove")),
            "replace" => {
                remove(document, &path).ok_or_else(|| missing("replace"))?;
                add(document, &path, value()?).ok_or_else(|| missing("replace"))
            }
            "move" | "copy" => {
                let from_path = self
                    .from
                    .as_deref()
                    .ok_or_else(|| format!("{} operation has no from", self.op))?;
                let from = pointer(from_path)?;
                let moved = match self.op.as_str() {
                    "move" => remove(document, &from),
                    _ => get(document, &from).cloned(),
                };
                let moved = moved.ok_or_else(|| {
                    format!(
                        "{} operation does not apply: doc is missing from path: {from_path:?}",
                        self.op
                    )
                })?;
                add(document, &path, moved).ok_or_else(|| missing(&self.op))
            }
            "test" => match get(document, &path) {
                Some(found) if Some(found) == self.value.as_ref() => Ok(()),
                _ => Err(format!("testing value {} failed: test failed", self.path)),
            },
            other => Err(format!("Unexpected kind: {other}")),
        }
    }
}

/// The tokens of a JSON pointer.
fn pointer(path: &str) -> Result<Vec<String>, String> {
    if path.is_empty() {
        return Ok(Vec::new());
    }
    let Some(rest) = path.strip_prefix('/') else {
        return Err(format!("JSON pointer must be empty or start with a \"/\": {path:?}"));
    };
    Ok(rest.split('/').map(|token| token.replace("~1", "/").replace("~0", "~")).collect())
}

fn get<'a>(document: &'a Value, path: &[String]) -> Option<&'a Value> {
    path.iter().try_fold(document, |value, token| match value {
        Value::Object(fields) => fields.get(token),
        Value::Array(items) => items.get(token.parse::<usize>().ok()?),
        _ => None,
    })
}

/// The container holding the last token of `path`, and that token.
fn parent<'a, 'p>(document: &'a mut Value, path: &'p [String]) -> Option<(&'a mut Value, &'p str)> {
    let (last, ancestors) = path.split_last()?;
    let container = ancestors.iter().try_fold(document, |value, token| match value {
        Value::Object(fields) => fields.get_mut(token),
        Value::Array(items) => items.get_mut(token.parse::<usize>().ok()?),
        _ => None,
    })?;
    Some((container, last))
}

fn add(document: &mut Value, path: &[String], value: Value) -> Option<()> {
    if path.is_empty() {
        *document = value;
        return Some(());
    }
    match parent(document, path)? {
        (Value::Object(fields), key) => {
            fields.insert(key.to_string(), value);
        }
        (Value::Array(items), "-") => items.push(value),
        (Value::Array(items), index) => {
            let index = index.parse::<usize>().ok().filter(|index| *index <= items.len())?;
            items.insert(index, value);
        }
        _ => return None,
    }
    Some(())
}

fn remove(document: &mut Value, path: &[String]) -> Option<Value> {
    match parent(document, path)? {
        (Value::Object(fields), key) => fields.remove(key),
        (Value::Array(items), index) => {
            let index = index.parse::<usize>().ok().filter(|index| *index < items.len())?;
            Some(items.remove(index))
        }
        _ => None,
    }
}
