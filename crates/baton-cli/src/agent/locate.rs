//! Where keys sit in a config file: the key path at a byte offset, and the line of a key path.

use std::fmt;
use std::ops::Range;

use toml::Spanned;
use toml::de::{DeTable, DeValue};

/// One step of a [`KeyPath`].
#[derive(Debug, Clone, PartialEq, Eq)]
enum Step {
    Key(String),
    Index(usize),
}

/// The path of a key from the top of the file, printed like `job[2].retry.max_attempts`
/// (array indexes count from 0).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KeyPath(Vec<Step>);

impl KeyPath {
    /// The top of the file.
    pub fn root() -> Self {
        KeyPath::default()
    }

    /// This path followed by `key`.
    pub fn key(&self, key: &str) -> Self {
        let mut steps = self.0.clone();
        steps.push(Step::Key(key.to_owned()));
        KeyPath(steps)
    }

    /// This path followed by the array index `index`.
    pub fn index(&self, index: usize) -> Self {
        let mut steps = self.0.clone();
        steps.push(Step::Index(index));
        KeyPath(steps)
    }
}

impl fmt::Display for KeyPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return f.write_str("(top level)");
        }
        for (i, step) in self.0.iter().enumerate() {
            match step {
                Step::Key(key) if i == 0 => f.write_str(key)?,
                Step::Key(key) => write!(f, ".{key}")?,
                Step::Index(index) => write!(f, "[{index}]")?,
            }
        }
        Ok(())
    }
}

/// A parsed document with the spans of its keys and values.
pub struct Locator<'i> {
    text: &'i str,
    root: Spanned<DeTable<'i>>,
}

impl<'i> Locator<'i> {
    /// Parses `text`, keeping the spans.
    pub fn parse(text: &'i str) -> Result<Self, toml::de::Error> {
        Ok(Locator { text, root: DeTable::parse(text)? })
    }

    /// The document, to deserialize.
    pub fn document(&self) -> Spanned<DeTable<'i>> {
        self.root.clone()
    }

    /// The 1-based line of the byte at `offset`.
    pub fn line_at(&self, offset: usize) -> usize {
        line_at(self.text, offset)
    }

    /// The deepest key or array item whose key or value covers the byte at `offset`. Tables
    /// are searched whatever their own span, which for an array of tables covers its header
    /// only.
    pub fn path_at(&self, offset: usize) -> KeyPath {
        in_table(self.root.get_ref(), offset, &KeyPath::root()).unwrap_or_default()
    }

    /// The 1-based line where `path` is written; for a key that is not in the file, the line of
    /// the nearest table that is.
    pub fn line_of(&self, path: &KeyPath) -> usize {
        let mut line = 1;
        let mut value: Option<&Spanned<DeValue<'i>>> = None;
        for step in &path.0 {
            let found = match (step, value.map(Spanned::get_ref)) {
                (Step::Key(wanted), None) => self.entry(self.root.get_ref(), wanted),
                (Step::Key(wanted), Some(DeValue::Table(table))) => self.entry(table, wanted),
                (Step::Index(index), Some(DeValue::Array(items))) => {
                    items.get(*index).map(|item| (item.span().start, item))
                }
                _ => None,
            };
            let Some((start, next)) = found else { break };
            line = self.line_at(start);
            value = Some(next);
        }
        line
    }

    /// The start of `wanted`'s key and its value in `table`.
    fn entry<'t>(
        &self,
        table: &'t DeTable<'i>,
        wanted: &str,
    ) -> Option<(usize, &'t Spanned<DeValue<'i>>)> {
        table
            .iter()
            .find(|(key, _)| key.get_ref() == wanted)
            .map(|(key, value)| (key.span().start, value))
    }
}

fn in_table(table: &DeTable<'_>, offset: usize, path: &KeyPath) -> Option<KeyPath> {
    table.iter().find_map(|(key, value)| {
        let here = path.key(key.get_ref());
        in_value(value, offset, &here).or_else(|| {
            (covers(&key.span(), offset) || covers(&value.span(), offset)).then_some(here)
        })
    })
}

fn in_value(value: &Spanned<DeValue<'_>>, offset: usize, path: &KeyPath) -> Option<KeyPath> {
    match value.get_ref() {
        DeValue::Table(table) => in_table(table, offset, path),
        DeValue::Array(items) => items.iter().enumerate().find_map(|(index, item)| {
            let here = path.index(index);
            in_value(item, offset, &here).or_else(|| covers(&item.span(), offset).then_some(here))
        }),
        _ => None,
    }
}

fn covers(span: &Range<usize>, offset: usize) -> bool {
    span.start <= offset && offset < span.end.max(span.start + 1)
}

/// The 1-based line of the byte at `offset` in `text`.
pub fn line_at(text: &str, offset: usize) -> usize {
    let offset = offset.min(text.len());
    text.as_bytes()[..offset].iter().filter(|&&b| b == b'\n').count() + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "backend = \"x\"\n\n[[job]]\nname = \"a\"\n[job.retry]\nmax = 1\n\n\
                        [[job]]\nname = \"b\"\nretry = { max = -3 }\nkeys = [\"p\", 7]\n";

    fn offset_of(needle: &str) -> usize {
        TEXT.find(needle).unwrap()
    }

    #[test]
    fn paths_reach_into_arrays_of_tables_and_inline_tables() {
        let locator = Locator::parse(TEXT).unwrap();
        let at = |needle| locator.path_at(offset_of(needle)).to_string();
        assert_eq!(at("backend"), "backend");
        assert_eq!(at("max = 1"), "job[0].retry.max");
        assert_eq!(at("-3"), "job[1].retry.max");
        assert_eq!(at("7]"), "job[1].keys[1]");
        assert_eq!(locator.path_at(TEXT.len() + 5), KeyPath::root());
    }

    #[test]
    fn lines_of_paths_fall_back_to_the_nearest_table() {
        let locator = Locator::parse(TEXT).unwrap();
        let job = KeyPath::root().key("job");
        assert_eq!(locator.line_of(&KeyPath::root().key("backend")), 1);
        assert_eq!(locator.line_of(&job.index(0).key("retry").key("max")), 6);
        assert_eq!(locator.line_of(&job.index(1).key("name")), 9);
        assert_eq!(locator.line_of(&job.index(1).key("timeout")), 8, "missing: its table");
        assert_eq!(locator.line_of(&job.index(1)), 8);
    }
}
