//! Picking the lines that start with a prefix out of a stream of output, each at most a bounded
//! length, for commands that talk to the agent on their standard output.

use tokio::sync::mpsc;

/// Splits bytes into lines and sends those that start with its prefix, without the line break.
/// A line longer than its bound is not sent.
pub struct LineSplitter {
    prefix: &'static str,
    max: usize,
    current: Vec<u8>,
    /// Whether the rest of the current line is not sent (not prefixed, or too long).
    skipping: bool,
    sender: mpsc::UnboundedSender<String>,
}

impl LineSplitter {
    /// Sends the lines starting with `prefix` of at most `max` bytes to `sender`.
    pub fn new(prefix: &'static str, max: usize, sender: mpsc::UnboundedSender<String>) -> Self {
        LineSplitter { prefix, max, current: Vec::new(), skipping: false, sender }
    }

    /// Takes the next bytes of the stream.
    pub fn feed(&mut self, mut bytes: &[u8]) {
        while let Some(end) = bytes.iter().position(|&b| b == b'\n') {
            self.append(&bytes[..end]);
            self.finish_line();
            bytes = &bytes[end + 1..];
        }
        self.append(bytes);
    }

    /// Ends the stream: a last line without a line break counts too.
    pub fn finish(mut self) {
        if !self.current.is_empty() || self.skipping {
            self.finish_line();
        }
    }

    fn append(&mut self, bytes: &[u8]) {
        if self.skipping {
            return;
        }
        let prefix = self.prefix.as_bytes();
        let checked = self.current.len().min(prefix.len());
        let seen = self.current.len() + bytes.len();
        if self.current.len() < prefix.len() {
            let upto = seen.min(prefix.len());
            let mut head = self.current[..checked].to_vec();
            head.extend_from_slice(&bytes[..upto - checked]);
            if head != prefix[..upto] {
                self.skipping = true; // not a line of interest
                return;
            }
        }
        if seen > self.max {
            self.skipping = true;
            self.current.clear();
            return;
        }
        self.current.extend_from_slice(bytes);
    }

    fn finish_line(&mut self) {
        let skipped = std::mem::replace(&mut self.skipping, false);
        let line = std::mem::take(&mut self.current);
        if skipped || line.len() < self.prefix.len() {
            return;
        }
        let mut text = String::from_utf8_lossy(&line).into_owned();
        if text.ends_with('\r') {
            text.pop();
        }
        let _ = self.sender.send(text);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(max: usize, chunks: &[&str]) -> Vec<String> {
        let (sender, mut receiver) = mpsc::unbounded_channel();
        let mut splitter = LineSplitter::new("::x ", max, sender);
        for chunk in chunks {
            splitter.feed(chunk.as_bytes());
        }
        splitter.finish();
        std::iter::from_fn(|| receiver.try_recv().ok()).collect()
    }

    #[test]
    fn sends_only_prefixed_lines_whatever_the_chunks() {
        let got = lines(100, &["plain\n::x a", "b\nother ::x no\n:", ":x c\r\n::", "x last"]);
        assert_eq!(got, ["::x ab", "::x c", "::x last"]);
    }

    #[test]
    fn drops_lines_past_the_bound() {
        let got = lines(8, &["::x 1234567\n", "::x 12\n"]);
        assert_eq!(got, ["::x 12"]);
    }
}
