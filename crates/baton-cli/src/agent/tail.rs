//! The bounded tail of a command's output: the last bytes it printed on stdout and stderr
//! together, in the order they arrived.

use std::collections::VecDeque;

/// Keeps the last `limit` bytes pushed and counts the ones dropped before them.
#[derive(Debug)]
pub struct OutputTail {
    limit: usize,
    kept: VecDeque<u8>,
    dropped: u64,
}

impl OutputTail {
    /// An empty tail keeping at most `limit` bytes.
    pub fn new(limit: usize) -> Self {
        OutputTail { limit, kept: VecDeque::with_capacity(limit.min(64 * 1024)), dropped: 0 }
    }

    /// Appends output, dropping the oldest bytes past the limit.
    pub fn push(&mut self, bytes: &[u8]) {
        let keep_new = bytes.len().min(self.limit);
        self.dropped += (bytes.len() - keep_new) as u64;
        self.kept.extend(&bytes[bytes.len() - keep_new..]);
        let excess = self.kept.len().saturating_sub(self.limit);
        self.kept.drain(..excess);
        self.dropped += excess as u64;
    }

    /// The text kept, as UTF-8 (invalid sequences replaced), after a line saying how many
    /// earlier bytes were not kept when some were; `None` when the command printed nothing.
    pub fn render(&self) -> Option<String> {
        let (front, back) = self.kept.as_slices();
        let mut bytes = Vec::with_capacity(self.kept.len());
        bytes.extend_from_slice(front);
        bytes.extend_from_slice(back);
        let mut dropped = self.dropped;
        if dropped > 0 {
            // A cut inside a character starts at the next one.
            let partial = bytes.iter().take_while(|b| (**b & 0b1100_0000) == 0b1000_0000).count();
            bytes.drain(..partial.min(3));
            dropped += partial.min(3) as u64;
        }
        let text = String::from_utf8_lossy(&bytes);
        match dropped {
            0 if text.is_empty() => None,
            0 => Some(text.into_owned()),
            _ => Some(format!("[{dropped} earlier bytes of output not kept]\n{text}")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_output_is_kept_whole() {
        let mut tail = OutputTail::new(16);
        assert_eq!(tail.render(), None);
        tail.push(b"hello ");
        tail.push(b"world\n");
        assert_eq!(tail.render().as_deref(), Some("hello world\n"));
    }

    #[test]
    fn long_output_keeps_its_end_and_says_how_much_was_dropped() {
        let mut tail = OutputTail::new(4);
        tail.push(b"abc");
        tail.push(b"defgh");
        assert_eq!(tail.render().as_deref(), Some("[4 earlier bytes of output not kept]\nefgh"));
        tail.push(b"0123456789");
        assert_eq!(tail.render().as_deref(), Some("[14 earlier bytes of output not kept]\n6789"));
    }

    #[test]
    fn a_cut_inside_a_character_starts_at_the_next_one() {
        let mut tail = OutputTail::new(4);
        tail.push("aé日".as_bytes()); // 1 + 2 + 3 bytes: the cut falls inside "é"
        assert_eq!(tail.render().as_deref(), Some("[3 earlier bytes of output not kept]\n日"));
    }

    #[test]
    fn a_zero_limit_keeps_nothing_but_the_count() {
        let mut tail = OutputTail::new(0);
        tail.push(b"abc");
        assert_eq!(tail.render().as_deref(), Some("[3 earlier bytes of output not kept]\n"));
    }
}
