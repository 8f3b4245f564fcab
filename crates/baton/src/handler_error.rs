//! A handler's error as the record keeps it: the error and every cause in its chain
//! (`source()`), on one line, bounded.

use std::error::Error;

/// The most bytes of an error kept with an execution or a partition.
pub(crate) const MAX_ERROR_BYTES: usize = 4096;

/// Anything a handler may fail with: every error type, `String`, `&str`, `anyhow::Error`.
pub type HandlerError = Box<dyn Error + Send + Sync + 'static>;

/// `err` and its causes, `error: cause: cause`, cut to [`MAX_ERROR_BYTES`]. A cause whose
/// text the line already ends with (an error that prints its source) is not repeated.
pub(crate) fn rendered(err: impl Into<HandlerError>) -> String {
    let err = err.into();
    let mut line = err.to_string();
    let mut cause = err.source();
    while let Some(source) = cause {
        let text = source.to_string();
        if !line.ends_with(&text) {
            line.push_str(": ");
            line.push_str(&text);
        }
        cause = source.source();
    }
    bounded(line)
}

fn bounded(mut line: String) -> String {
    if line.len() > MAX_ERROR_BYTES {
        let mut cut = MAX_ERROR_BYTES - '…'.len_utf8();
        while !line.is_char_boundary(cut) {
            cut -= 1;
        }
        line.truncate(cut);
        line.push('…');
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug)]
    struct Layer(&'static str, Option<Box<Layer>>);

    impl std::fmt::Display for Layer {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str(self.0)
        }
    }

    impl Error for Layer {
        fn source(&self) -> Option<&(dyn Error + 'static)> {
            self.1.as_deref().map(|layer| layer as &(dyn Error + 'static))
        }
    }

    #[test]
    fn the_chain_is_kept_on_one_line() {
        let root = Layer("connection refused", None);
        let err = Layer("loading the ledger", Some(Box::new(root)));
        assert_eq!(rendered(err), "loading the ledger: connection refused");
        let repeats = Layer("read failed: disk full", Some(Box::new(Layer("disk full", None))));
        assert_eq!(rendered(repeats), "read failed: disk full", "a printed cause is not repeated");
        assert_eq!(rendered("plain text"), "plain text");
    }

    #[test]
    fn a_long_error_is_cut_at_a_character() {
        let long = "é".repeat(MAX_ERROR_BYTES);
        let kept = rendered(long);
        assert!(kept.len() <= MAX_ERROR_BYTES && kept.ends_with('…'), "{}", kept.len());
    }
}
