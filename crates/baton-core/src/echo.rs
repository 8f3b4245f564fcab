//! Echoing a refused value in an error line: quoted, and cut so that a 10 KB value does not
//! make a 10 KB line. Every "invalid …" message names the value through [`quoted`].

/// The most characters of a value an error line repeats.
pub const MAX_ECHO_CHARS: usize = 100;

/// `value` quoted as Rust's `{:?}` does (control characters escaped); when it is longer than
/// [`MAX_ECHO_CHARS`] characters, only those, then `…`, and its length: `"xxx…" (10240 bytes)`.
pub fn quoted(value: &str) -> String {
    match value.char_indices().nth(MAX_ECHO_CHARS) {
        None => format!("{value:?}"),
        Some((end, _)) => format!("{:?} ({} bytes)", format!("{}…", &value[..end]), value.len()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_values_are_quoted_whole() {
        assert_eq!(quoted("a b\n"), "\"a b\\n\"");
        assert_eq!(quoted(&"x".repeat(MAX_ECHO_CHARS)), format!("\"{}\"", "x".repeat(100)));
    }

    #[test]
    fn long_values_are_cut_on_a_character_boundary() {
        let long = "정".repeat(5_000);
        let echoed = quoted(&long);
        assert_eq!(echoed, format!("\"{}…\" (15000 bytes)", "정".repeat(100)));
    }
}
