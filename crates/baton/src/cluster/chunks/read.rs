//! The source side of a chunked step: a reader that resumes from a position, a processor, and
//! the checkpoint that records how far the step got.

use std::error::Error as StdError;
use std::future::Future;

use baton_core::cluster::JsonText;
use baton_core::{Error, Result};

/// Where a reader resumes, saved in the partition's checkpoint as JSON.
///
/// Implemented for `u64` (a line number, a byte offset, a row id, an item index); implement it
/// for richer positions, such as a key with a tie-breaker.
pub trait ReadPosition: Sized + Send {
    /// The position as JSON text: a number, a string, an array or an object.
    fn to_json(&self) -> String;

    /// Reads back what [`to_json`](Self::to_json) wrote; `InvalidInput` for anything else.
    fn from_json(json: &str) -> Result<Self>;
}

impl ReadPosition for u64 {
    fn to_json(&self) -> String {
        self.to_string()
    }

    fn from_json(json: &str) -> Result<Self> {
        json.parse().map_err(|_| {
            Error::invalid_input(format!("invalid read position {json}: expected an integer"))
        })
    }
}

/// Reads the items of one partition in order, from the start or from a saved position.
pub trait ItemReader: Send {
    /// What it reads.
    type Item: Send;
    /// Where it can resume.
    type Position: ReadPosition;

    /// Prepares to read from the partition's start (`None`) or from a position that
    /// [`position`](Self::position) answered before, possibly on another node.
    fn open(&mut self, from: Option<Self::Position>) -> impl Future<Output = Result<()>> + Send;

    /// The next item, or `None` at the end of the partition.
    fn next(&mut self) -> impl Future<Output = Result<Option<Self::Item>>> + Send;

    /// The position just after the last item [`next`](Self::next) returned: opening there
    /// reads the following item first.
    fn position(&self) -> Self::Position;
}

/// Turns each item into an output, or refuses it with an error that fails the step.
///
/// Implemented for every `FnMut(Item) -> Result<Output, E>` whose error converts into a boxed
/// error (`String`, `&str` and every `std::error::Error` do).
pub trait ItemProcessor<I>: Send {
    /// What the writer receives for each item.
    type Output: Send;
    /// Why an item was refused.
    type Error: Into<Box<dyn StdError + Send + Sync>>;

    /// Processes one item.
    fn process(&mut self, item: I) -> Result<Self::Output, Self::Error>;
}

impl<I, O, E, F> ItemProcessor<I> for F
where
    F: FnMut(I) -> Result<O, E> + Send,
    O: Send,
    E: Into<Box<dyn StdError + Send + Sync>>,
{
    type Output = O;
    type Error = E;

    fn process(&mut self, item: I) -> Result<O, E> {
        self(item)
    }
}

const ITEMS: &str = r#"{"items":"#;
const POSITION: &str = r#","position":"#;

/// The checkpoint after `items` items, the reader being at `position`:
/// `{"items":N,"position":P}`.
pub(super) fn encode<P: ReadPosition>(items: u64, position: &P) -> Result<JsonText> {
    JsonText::new(format!("{ITEMS}{items}{POSITION}{}}}", position.to_json()))
}

/// The items committed and the reader's position, from a checkpoint [`encode`] wrote;
/// `InvalidInput` naming the text otherwise.
pub(super) fn decode<P: ReadPosition>(checkpoint: &JsonText) -> Result<(u64, P)> {
    let text = checkpoint.as_str();
    let parts = text
        .strip_prefix(ITEMS)
        .and_then(|rest| rest.strip_suffix('}'))
        .and_then(|rest| rest.split_once(POSITION));
    let unreadable = || {
        Error::invalid_input(format!(
            "unreadable checkpoint {text}: expected {ITEMS}N{POSITION}...}} as a chunked step \
             writes it"
        ))
    };
    let (items, position) = parts.ok_or_else(unreadable)?;
    let items = items.parse().map_err(|_| unreadable())?;
    Ok((items, P::from_json(position)?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use baton_core::ErrorKind;

    /// A position with a key, as a keyset reader would keep.
    #[derive(Debug, PartialEq)]
    struct After(String);

    impl ReadPosition for After {
        fn to_json(&self) -> String {
            format!(r#"{{"after":"{}"}}"#, self.0)
        }

        fn from_json(json: &str) -> Result<Self> {
            let key = json.strip_prefix(r#"{"after":""#).and_then(|k| k.strip_suffix(r#""}"#));
            key.map(|k| After(k.to_owned())).ok_or_else(|| Error::invalid_input(json))
        }
    }

    #[test]
    fn checkpoints_round_trip_with_any_position() {
        let saved = encode(30, &30_u64).unwrap();
        assert_eq!(saved.as_str(), r#"{"items":30,"position":30}"#);
        assert_eq!(decode::<u64>(&saved).unwrap(), (30, 30));
        let keyed = encode(7, &After("k-9".into())).unwrap();
        assert_eq!(keyed.as_str(), r#"{"items":7,"position":{"after":"k-9"}}"#);
        assert_eq!(decode::<After>(&keyed).unwrap(), (7, After("k-9".into())));
    }

    #[test]
    fn checkpoints_written_otherwise_are_refused_by_name() {
        for text in [r#"{"row":500}"#, r#"{"items":-1,"position":3}"#, r#"{"items":1}"#] {
            let err = decode::<u64>(&JsonText::new(text).unwrap()).unwrap_err();
            assert_eq!(err.kind(), ErrorKind::InvalidInput);
            assert!(err.to_string().starts_with(&format!("unreadable checkpoint {text}")), "{err}");
        }
        let err = decode::<u64>(&JsonText::new(r#"{"items":1,"position":"x"}"#).unwrap());
        assert_eq!(
            err.unwrap_err().to_string(),
            r#"invalid read position "x": expected an integer"#
        );
    }
}
