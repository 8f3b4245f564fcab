//! JSON text kept verbatim: partition parameters, checkpoints and results.

use std::fmt;

use crate::error::{Error, Result};

/// The most bytes of JSON text a store keeps in one field.
pub const MAX_JSON_BYTES: usize = 1 << 20;

/// JSON text serialized by the caller (parameters, a checkpoint, a result), 1 byte to
/// [`MAX_JSON_BYTES`]. Stores keep it byte for byte and never parse it, so what a partition
/// reads back is exactly what was written.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct JsonText(String);

impl JsonText {
    /// Wraps serialized JSON; `InvalidInput` naming the size when it is empty or too long.
    pub fn new(text: impl Into<String>) -> Result<Self> {
        let text = text.into();
        if text.is_empty() || text.len() > MAX_JSON_BYTES {
            return Err(Error::invalid_input(format!(
                "invalid JSON text of {} bytes: expected 1 to {MAX_JSON_BYTES} bytes",
                text.len()
            )));
        }
        Ok(JsonText(text))
    }

    /// The text as stored.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for JsonText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_text_verbatim_within_the_size_limit() {
        let text = r#"{ "from": 0,  "to": 99999 }"#;
        assert_eq!(JsonText::new(text).unwrap().as_str(), text);
        assert!(JsonText::new("x".repeat(MAX_JSON_BYTES)).is_ok());
    }

    #[test]
    fn rejects_empty_and_oversized_text_naming_the_size() {
        let err = JsonText::new("").unwrap_err();
        assert_eq!(err.to_string(), "invalid JSON text of 0 bytes: expected 1 to 1048576 bytes");
        let err = JsonText::new("x".repeat(MAX_JSON_BYTES + 1)).unwrap_err();
        assert!(err.to_string().contains("of 1048577 bytes"), "{err}");
    }
}
