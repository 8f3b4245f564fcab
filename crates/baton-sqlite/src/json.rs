//! JSON arrays handed to `json_each`, so that one statement covers a whole batch.
//!
//! Only what the queries need: arrays of strings, and arrays of rows whose cells are integers,
//! strings or null. Strings are escaped per RFC 8259.

/// One cell of a row.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Cell<'a> {
    /// A JSON integer; `json_extract` returns it as an SQLite INTEGER.
    Int(i64),
    /// A JSON string; `json_extract` returns it as TEXT.
    Text(&'a str),
    /// JSON null.
    Null,
}

impl<'a> From<i64> for Cell<'a> {
    fn from(value: i64) -> Self {
        Cell::Int(value)
    }
}

impl<'a> From<&'a str> for Cell<'a> {
    fn from(value: &'a str) -> Self {
        Cell::Text(value)
    }
}

impl<'a> From<Option<&'a str>> for Cell<'a> {
    fn from(value: Option<&'a str>) -> Self {
        value.map_or(Cell::Null, Cell::Text)
    }
}

/// A JSON array of rows, each an array of cells: `[[1,"a"],[2,null]]`.
#[derive(Debug, Default)]
pub(crate) struct Rows {
    text: String,
    count: usize,
}

impl Rows {
    /// Appends one row.
    pub(crate) fn push(&mut self, cells: &[Cell<'_>]) {
        self.text.push(if self.count == 0 { '[' } else { ',' });
        self.text.push('[');
        for (i, cell) in cells.iter().enumerate() {
            if i > 0 {
                self.text.push(',');
            }
            match cell {
                Cell::Int(value) => self.text.push_str(&value.to_string()),
                Cell::Text(value) => push_string(&mut self.text, value),
                Cell::Null => self.text.push_str("null"),
            }
        }
        self.text.push(']');
        self.count += 1;
    }

    /// How many rows were pushed.
    pub(crate) fn len(&self) -> usize {
        self.count
    }

    /// The array as text.
    pub(crate) fn finish(mut self) -> String {
        if self.count == 0 {
            return "[]".to_string();
        }
        self.text.push(']');
        self.text
    }
}

/// A JSON array of strings: `["a","b"]`.
pub(crate) fn strings<'a>(items: impl IntoIterator<Item = &'a str>) -> String {
    let mut text = String::from("[");
    for (i, item) in items.into_iter().enumerate() {
        if i > 0 {
            text.push(',');
        }
        push_string(&mut text, item);
    }
    text.push(']');
    text
}

/// A JSON array of integers: `[1,2]`.
pub(crate) fn ints(items: impl IntoIterator<Item = i64>) -> String {
    let items: Vec<String> = items.into_iter().map(|item| item.to_string()).collect();
    format!("[{}]", items.join(","))
}

fn push_string(text: &mut String, value: &str) {
    text.push('"');
    for c in value.chars() {
        match c {
            '"' => text.push_str("\\\""),
            '\\' => text.push_str("\\\\"),
            c if (c as u32) < 0x20 => text.push_str(&format!("\\u{:04x}", c as u32)),
            c => text.push(c),
        }
    }
    text.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_escape_strings_and_write_nulls() {
        let mut rows = Rows::default();
        assert_eq!(Rows::default().finish(), "[]");
        rows.push(&[Cell::Int(-3), Cell::Text(r#"q"uo\te"#), Cell::Null]);
        rows.push(&[Cell::Text("tab\there")]);
        assert_eq!(rows.len(), 2);
        assert_eq!(rows.finish(), r#"[[-3,"q\"uo\\te",null],["tab\u0009here"]]"#);
    }

    #[test]
    fn arrays_of_strings_and_ints() {
        assert_eq!(strings(["a", "정산"]), r#"["a","정산"]"#);
        assert_eq!(strings([]), "[]");
        assert_eq!(ints([1, 22]), "[1,22]");
        assert_eq!(ints([]), "[]");
    }
}
