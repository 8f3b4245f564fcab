//! Values of the file format whose type errors say what is expected in the file's terms:
//! durations and command lines.

use std::fmt;

use serde::Deserialize;
use serde::de::{self, SeqAccess, Visitor};

/// A duration as written, such as `"30s"`; parsed when the file is checked.
#[derive(Debug, Clone)]
pub struct DurationText(String);

impl DurationText {
    /// The text as written.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl<'de> Deserialize<'de> for DurationText {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Text;
        impl Visitor<'_> for Text {
            type Value = DurationText;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(r#"a duration in quotes, such as "30s", "5m" or "1m30s""#)
            }
            fn visit_str<E: de::Error>(self, text: &str) -> Result<Self::Value, E> {
                Ok(DurationText(text.to_owned()))
            }
        }
        deserializer.deserialize_str(Text)
    }
}

/// A command line: the program, then its arguments.
#[derive(Debug, Clone)]
pub struct CommandLine(pub Vec<String>);

impl<'de> Deserialize<'de> for CommandLine {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Words;
        impl<'de> Visitor<'de> for Words {
            type Value = CommandLine;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(r#"a list of the program and its arguments, such as ["./report.sh", "--daily"]"#)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut words = Vec::new();
                while let Some(word) = seq.next_element::<String>()? {
                    words.push(word);
                }
                Ok(CommandLine(words))
            }
        }
        deserializer.deserialize_seq(Words)
    }
}
