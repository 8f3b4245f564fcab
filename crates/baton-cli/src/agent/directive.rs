//! What a partition's command tells the agent on its standard output: lines starting with
//! `::baton `. The one directive is `::baton checkpoint <json> [progress]`.

use serde::de::IgnoredAny;

/// The start of every directive line.
pub const PREFIX: &str = "::baton ";

/// A directive, parsed.
#[derive(Debug, PartialEq, Eq)]
pub enum Directive {
    /// Save this JSON as the partition's checkpoint, with the units of work done if given.
    Checkpoint {
        /// The JSON text, as printed.
        state: String,
        /// The units of work done so far.
        progress: Option<u64>,
    },
}

/// How much of a refused line its message shows.
const SHOWN_BYTES: usize = 200;

/// Parses a directive line (with its prefix); the error names the line (its start, when long)
/// and what is accepted.
pub fn parse(line: &str) -> Result<Directive, String> {
    let refused = |why: &str| {
        let mut end = line.len().min(SHOWN_BYTES);
        while !line.is_char_boundary(end) {
            end -= 1;
        }
        let more = if end < line.len() { "…" } else { "" };
        format!(
            "ignored {:?}{more}: {why}; expected `::baton checkpoint <json> [progress]`, such \
             as `::baton checkpoint {{\"row\":1200}} 1200`",
            &line[..end]
        )
    };
    let rest = line.strip_prefix(PREFIX).ok_or_else(|| refused("not a directive"))?;
    let Some(rest) = rest.strip_prefix("checkpoint ") else {
        return Err(refused("unknown directive"));
    };
    let mut values = serde_json::Deserializer::from_str(rest).into_iter::<IgnoredAny>();
    match values.next() {
        Some(Ok(IgnoredAny)) => {}
        _ => return Err(refused("the checkpoint is not valid JSON")),
    }
    let end = values.byte_offset();
    let state = rest[..end].trim().to_owned();
    let progress = match rest[end..].trim() {
        "" => None,
        text => {
            Some(text.parse::<u64>().map_err(|_| refused("the progress is not a whole number"))?)
        }
    };
    Ok(Directive::Checkpoint { state, progress })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn checkpoint(state: &str, progress: Option<u64>) -> Directive {
        Directive::Checkpoint { state: state.to_owned(), progress }
    }

    #[test]
    fn checkpoints_carry_any_json_and_an_optional_progress() {
        assert_eq!(
            parse(r#"::baton checkpoint {"row": 5} 5"#),
            Ok(checkpoint(r#"{"row": 5}"#, Some(5)))
        );
        assert_eq!(parse("::baton checkpoint 42"), Ok(checkpoint("42", None)));
        assert_eq!(parse(r#"::baton checkpoint "a b"  7 "#), Ok(checkpoint(r#""a b""#, Some(7))));
        assert_eq!(parse("::baton checkpoint [1, 2]"), Ok(checkpoint("[1, 2]", None)));
    }

    #[test]
    fn malformed_lines_are_refused_naming_the_line() {
        for (line, why) in [
            ("::baton checkpoint {oops", "not valid JSON"),
            ("::baton checkpoint ", "not valid JSON"),
            ("::baton checkpoint 5 five", "not a whole number"),
            ("::baton checkpoint 5 -1", "not a whole number"),
            ("::baton progress 5", "unknown directive"),
        ] {
            let err = parse(line).unwrap_err();
            assert!(err.starts_with(&format!("ignored {line:?}: ")), "{err}");
            assert!(err.contains(why), "{err}");
        }
        let long = format!("::baton checkpoint {{{}", "x".repeat(1000));
        let err = parse(&long).unwrap_err();
        assert!(err.starts_with(&format!("ignored {:?}…: ", &long[..SHOWN_BYTES])), "{err}");
    }
}
